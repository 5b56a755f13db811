import { CheckboxField } from "../../../ui/CheckboxField";
import { Field } from "../../../ui/Field";
import { LineListInput } from "../../../ui/LineListInput";
import type { ConfigValue } from "./draft";
import { isListField, isNumberField, type ConfigField } from "./schema";

interface ConfigFieldsProps {
  fields: ConfigField[];
  values: Record<string, ConfigValue>;
  errors: Record<string, string[]>;
  onChange: (key: string, value: ConfigValue) => void;
  disabled?: boolean;
}

function bounds({ minimum, maximum }: ConfigField["schema"]) {
  if (minimum !== undefined && maximum !== undefined) return `${minimum}–${maximum}.`;
  if (minimum !== undefined) return `At least ${minimum}.`;
  if (maximum !== undefined) return `At most ${maximum}.`;
  return "";
}

/** One control per property of the provider's config schema, as the schema describes it. */
export function ConfigFields({ fields, values, errors, onChange, disabled }: ConfigFieldsProps) {
  return (
    <>
      {fields.map(({ key, schema }) => {
        const label = schema.title ?? key;
        const error = errors[`config.${key}`];
        const value = values[key];

        if (schema.type === "boolean") {
          return (
            <CheckboxField
              key={key}
              label={label}
              help={schema.description}
              error={error}
              checked={value === true}
              disabled={disabled}
              onChange={(checked) => onChange(key, checked)}
            />
          );
        }

        if (isListField(schema)) {
          return (
            <Field key={key} label={label} error={error} help={`${schema.description ?? ""} One per line.`.trim()}>
              {(control) => (
                <LineListInput
                  {...control}
                  value={Array.isArray(value) ? value : []}
                  disabled={disabled}
                  onChange={(list) => onChange(key, list)}
                />
              )}
            </Field>
          );
        }

        if (schema.enum) {
          return (
            <Field key={key} label={label} error={error} help={schema.description}>
              {(control) => (
                <select
                  {...control}
                  className="input"
                  value={String(value ?? "")}
                  disabled={disabled}
                  onChange={(e) => onChange(key, e.target.value)}
                >
                  {schema.enum!.map((option) => (
                    <option key={String(option)} value={String(option)}>
                      {String(option)}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          );
        }

        const numeric = isNumberField(schema);
        return (
          <Field
            key={key}
            label={label}
            error={error}
            help={[schema.description, numeric ? bounds(schema) : ""].filter(Boolean).join(" ")}
          >
            {(control) => (
              <input
                {...control}
                className={numeric ? "input input--number" : "input"}
                type={numeric ? "number" : "text"}
                inputMode={numeric ? "numeric" : undefined}
                min={schema.minimum}
                max={schema.maximum}
                step={schema.type === "integer" ? 1 : undefined}
                placeholder={schema.default !== undefined && schema.default !== "" ? String(schema.default) : undefined}
                value={typeof value === "string" ? value : ""}
                disabled={disabled}
                spellCheck={false}
                onChange={(e) => onChange(key, e.target.value)}
              />
            )}
          </Field>
        );
      })}
    </>
  );
}
