import { Server } from "lucide-react";
import { useProviders } from "../api/listProviders";
import "./ProviderIcon.css";

/**
 * A provider's icon, as the catalogue serves it: an SVG shown as an image,
 * which cannot run scripts. A generic one stands in until it is known.
 */
export function ProviderIcon({ provider, size = 18 }: { provider: string; size?: number }) {
  const { data: providers } = useProviders();
  const icon = providers?.find((p) => p.name === provider)?.icon;
  return (
    <span className="provider-icon" aria-hidden="true">
      {icon ? <img src={icon} alt="" width={size} height={size} /> : <Server size={size} />}
    </span>
  );
}
