import { CheckboxField } from "../../../ui/CheckboxField";
import { Field } from "../../../ui/Field";
import { LineListInput } from "../../../ui/LineListInput";
import type { ConfigObject, ConfigValue } from "./draft";
import { RequirementsField } from "./RequirementsField";
import { fieldId, isListField, isMapField, isNumberField, isObjectField, isRequirementsField, objectFields, type ConfigField } from "./schema";

interface ConfigFieldsProps {
  fields: ConfigField[];
  values: Record<string, ConfigValue>;
  errors: Record<string, string[]>;
  /** fieldKey is the error key of the input that changed ("config.network.allow"). */
  onChange: (key: string, value: ConfigValue, fieldKey: string) => void;
  disabled?: boolean;
  /** The error key of the object these fields belong to. */
  path?: string;
}

function bounds({ minimum, maximum }: ConfigField["schema"]) {
  if (minimum !== undefined && maximum !== undefined) return `${minimum}–${maximum}.`;
  if (minimum !== undefined) return `At least ${minimum}.`;
  if (maximum !== undefined) return `At most ${maximum}.`;
  return "";
}

/**
 * One control per property of the provider's config schema, as the schema
 * describes it; an object property is a fieldset of its own fields.
 */
export function ConfigFields({ fields, values, errors, onChange, disabled, path = "config" }: ConfigFieldsProps) {
  return (
    <>
      {fields.map(({ key, schema }) => {
        const label = schema.title ?? key;
        const fieldKey = `${path}.${key}`;
        const error = errors[fieldKey];
        const value = values[key];
        const change = (next: ConfigValue) => onChange(key, next, fieldKey);

        if (isObjectField(schema)) {
          const object = typeof value === "object" && !Array.isArray(value) ? value : {};
          return (
            <fieldset key={key} id={fieldId(fieldKey)} tabIndex={-1} className="config-fieldset">
              <legend className="field__label">{label}</legend>
              {schema.description && <p className="field__help">{schema.description}</p>}
              {error && (
                <p className="field__error" role="alert">
                  {error.join(" ")}
                </p>
              )}
              <ConfigFields
                fields={objectFields(schema)}
                values={object}
                errors={errors}
                disabled={disabled}
                path={fieldKey}
                onChange={(inner, next, changed) => onChange(key, { ...object, [inner]: next } as ConfigObject, changed)}
              />
            </fieldset>
          );
        }

        if (schema.type === "boolean") {
          return (
            <CheckboxField
              key={key}
              id={fieldId(fieldKey)}
              label={label}
              help={schema.description}
              error={error}
              checked={value === true}
              disabled={disabled}
              onChange={change}
            />
          );
        }

        if (isRequirementsField(schema)) {
          return (
            <RequirementsField
              key={key}
              id={fieldId(fieldKey)}
              label={label}
              description={schema.description}
              error={error}
              value={Array.isArray(value) ? value : []}
              disabled={disabled}
              onChange={change}
            />
          );
        }

        if (isListField(schema)) {
          const perLine = isMapField(schema) ? "One NAME=value per line." : "One per line.";
          return (
            <Field key={key} id={fieldId(fieldKey)} label={label} error={error} help={`${schema.description ?? ""} ${perLine}`.trim()}>
              {(control) => (
                <LineListInput
                  {...control}
                  value={Array.isArray(value) ? value : []}
                  disabled={disabled}
                  onChange={change}
                />
              )}
            </Field>
          );
        }

        if (schema.enum) {
          return (
            <Field key={key} id={fieldId(fieldKey)} label={label} error={error} help={schema.description}>
              {(control) => (
                <select
                  {...control}
                  className="input"
                  value={String(value ?? "")}
                  disabled={disabled}
                  onChange={(e) => change(e.target.value)}
                >
                  {schema.enum!.map((option) => (
                    <option key={String(option)} value={String(option)}>
                      {optionLabel(String(option))}
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
            id={fieldId(fieldKey)}
            label={label}
            error={error}
            help={[schema.description, numeric && !schema.readOnly ? bounds(schema) : ""].filter(Boolean).join(" ")}
          >
            {(control) => (
              <input
                {...control}
                className={numeric ? "input input--number" : "input"}
                type={numeric ? "number" : "text"}
                inputMode={numeric ? (schema.type === "integer" ? "numeric" : "decimal") : undefined}
                min={schema.minimum}
                max={schema.maximum}
                step={schema.type === "integer" ? 1 : numeric ? (schema.multipleOf ?? "any") : undefined}
                placeholder={schema.default !== undefined && schema.default !== "" ? String(schema.default) : undefined}
                value={typeof value === "string" ? value : ""}
                disabled={disabled || schema.readOnly}
                spellCheck={false}
                onChange={(e) => change(e.target.value)}
              />
            )}
          </Field>
        );
      })}
    </>
  );
}

// The words a select shows for the schema's values; the value itself is what is sent.
const optionLabels: Record<string, string> = {
  until_expiry: "Until the instance expires",
  always: "Always",
  allow: "Allow",
  deny: "Deny",
  bubblewrap: "Bubblewrap",
  gvisor: "gVisor",
};

/** A schema value as a select's label: a known one's words, else the value with spaces and a capital. */
export function optionLabel(value: string): string {
  if (value in optionLabels) return optionLabels[value]!;
  const words = value.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}
