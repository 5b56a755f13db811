import { Field } from "../../../ui/Field";
import { LineListInput } from "../../../ui/LineListInput";
import { splitRequirements } from "./requirements";

interface RequirementsFieldProps {
  id?: string;
  label: string;
  description?: string;
  error?: string[];
  value: string[];
  disabled?: boolean;
  onChange: (value: string[]) => void;
}

/** pip requirements one per line or comma-separated, with the list as it will be saved. */
export function RequirementsField({ id, label, description, error, value, disabled, onChange }: RequirementsFieldProps) {
  const help = (
    <>
      {`${description ?? ""} One per line, or separated by commas.`.trim()}
      {value.length > 0 && ` Saved as ${value.length} ${value.length === 1 ? "requirement" : "requirements"}: `}
      {value.map((requirement, i) => (
        <span key={i}>
          {i > 0 && ", "}
          <code>{requirement}</code>
        </span>
      ))}
      {value.length > 0 && "."}
    </>
  );
  return (
    <Field id={id} label={label} error={error} help={help}>
      {(control) => <LineListInput {...control} value={value} disabled={disabled} parse={splitRequirements} onChange={onChange} />}
    </Field>
  );
}
