import type { ProviderField, SecretHint } from "../../../api/types";
import { Button } from "../../../ui/Button";
import { Field } from "../../../ui/Field";
import { PasswordInput } from "../../../ui/PasswordInput";

interface SecretFieldProps {
  id?: string;
  field: ProviderField;
  value: string;
  onChange: (value: string) => void;
  /** Editing: what the server shows of the stored secret. */
  hint?: SecretHint;
  cleared: boolean;
  onClearedChange: (cleared: boolean) => void;
  error?: string[];
  disabled?: boolean;
}

/** The placeholder that says a secret is stored and how to keep it. */
export function keepPlaceholder(hint: SecretHint | undefined): string | undefined {
  if (!hint?.is_set) return undefined;
  return hint.last4 ? `••••••${hint.last4} — leave blank to keep` : "Saved — leave blank to keep";
}

/** What the server shows of a stored secret: "ends in x9Qz · 40 characters". */
export function describeStoredSecret(hint: SecretHint | undefined): string | undefined {
  if (!hint?.is_set) return undefined;
  const parts: string[] = [];
  if (hint.last4) parts.push(`ends in ${hint.last4}`);
  if (hint.length) parts.push(`${hint.length} ${hint.length === 1 ? "character" : "characters"}`);
  return parts.length > 0 ? `Saved: ${parts.join(" · ")}.` : "Saved.";
}

export function SecretField({ id, field, value, onChange, hint, cleared, onClearedChange, error, disabled }: SecretFieldProps) {
  const editing = hint !== undefined;
  // Clearing is offered only where the provider works without a secret.
  const canClear = editing && hint.is_set && !field.required;
  const action = canClear ? (
    <Button variant="ghost" size="sm" onClick={() => onClearedChange(!cleared)} disabled={disabled}>
      {cleared ? "Keep saved" : "Clear"}
    </Button>
  ) : undefined;

  let help: string | undefined;
  if (cleared) help = `The saved ${field.label.toLowerCase()} will be removed when you save.`;
  else if (hint?.is_set) help = describeStoredSecret(hint);
  else if (!field.required) help = "Optional.";

  return (
    <Field id={id} label={field.label} required={field.required && !hint?.is_set} error={error} help={help} action={action}>
      {(control) => (
        <PasswordInput
          {...control}
          subject={field.label}
          value={cleared ? "" : value}
          disabled={disabled || cleared}
          placeholder={cleared ? "Will be cleared" : keepPlaceholder(hint)}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
  );
}
