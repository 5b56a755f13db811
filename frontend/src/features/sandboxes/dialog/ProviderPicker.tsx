import type { Provider } from "../../../api/types";
import { ProviderIcon } from "../../../ui/ProviderIcon";

interface ProviderPickerProps {
  providers: Provider[];
  value: string;
  onChange: (name: string) => void;
  /** Editing: the provider of a saved sandbox cannot change. */
  locked: boolean;
}

/** Provider cards as a radio group: arrow keys move between them. */
export function ProviderPicker({ providers, value, onChange, locked }: ProviderPickerProps) {
  return (
    <fieldset className="provider-picker">
      <legend className="field__label">
        Provider{locked && <span className="muted"> (cannot change once saved)</span>}
      </legend>
      <div className="provider-picker__cards">
        {providers.map((p) => {
          const unavailable = !p.enabled;
          return (
            <label
              key={p.name}
              className={[
                "provider-card",
                value === p.name && "provider-card--selected",
                (locked || unavailable) && "provider-card--disabled",
              ]
                .filter(Boolean)
                .join(" ")}
            >
              <input
                type="radio"
                name="provider"
                className="card-radio"
                value={p.name}
                checked={value === p.name}
                disabled={locked || unavailable}
                onChange={() => onChange(p.name)}
              />
              <ProviderIcon provider={p.name} />
              <span className="provider-card__text">
                <span className="provider-card__title">{p.title}</span>
                <span className="provider-card__description">
                  {unavailable ? p.disabled_reason || "Not available on this server." : p.description}
                </span>
                {p.shell && <span className="provider-card__shell">Commands run in {p.shell}.</span>}
              </span>
            </label>
          );
        })}
      </div>
    </fieldset>
  );
}
