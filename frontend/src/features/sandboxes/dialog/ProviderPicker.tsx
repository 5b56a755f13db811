import type { Provider } from "../../../api/types";
import { ProviderIcon } from "../../../ui/ProviderIcon";

interface ProviderPickerProps {
  providers: Provider[];
  value: string;
  onChange: (name: string) => void;
  /** Editing: the provider of a saved sandbox cannot change, and is shown alone. */
  locked: boolean;
}

/**
 * Provider cards as a radio group: arrow keys move between them. A saved
 * sandbox's provider cannot change, so editing shows it alone, as a line.
 */
export function ProviderPicker({ providers, value, onChange, locked }: ProviderPickerProps) {
  if (locked) {
    const own = providers.find((p) => p.name === value);
    return (
      <div className="field provider-line">
        <span className="field__label">Provider</span>
        <p className="provider-line__value">
          <ProviderIcon provider={value} />
          <span>{own?.title ?? value}</span>
          <span className="muted"> (cannot change once saved)</span>
        </p>
      </div>
    );
  }
  return (
    <fieldset className="provider-picker">
      <legend className="field__label">
        Provider
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
                unavailable && "provider-card--disabled",
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
                disabled={unavailable}
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
