/** The colour an agent has when none is set (the server's default too). */
export const defaultAgentColor = "#6366f1";

/** The agent's emoji on its colour. */
export function AgentAvatar({ emoji, color, size = 32 }: { emoji: string; color: string; size?: number }) {
  return (
    <span
      className="agent-avatar"
      aria-hidden="true"
      style={{ width: size, height: size, fontSize: size * 0.5, background: `${color || defaultAgentColor}33`, borderColor: color || undefined }}
    >
      {emoji || "🤖"}
    </span>
  );
}
