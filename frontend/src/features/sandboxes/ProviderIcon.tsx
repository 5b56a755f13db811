import { Box, Cloud, Cpu, Server, Sun } from "lucide-react";
import "./ProviderIcon.css";

// Only the look is chosen here; which providers exist comes from the API.
const icons: Record<string, typeof Box> = {
  opensandbox: Box,
  daytona: Sun,
  cloudrun: Cloud,
  local: Cpu,
};

export function ProviderIcon({ provider, size = 18 }: { provider: string; size?: number }) {
  const Icon = icons[provider] ?? Server;
  return (
    <span className={`provider-icon provider-icon--${provider}`} aria-hidden="true">
      <Icon size={size} />
    </span>
  );
}
