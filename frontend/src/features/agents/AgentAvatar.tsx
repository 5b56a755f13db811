import { hasGlyph } from "../../ui/emojiGlyph";

/** The colour an agent has when none is set (the server's default too). */
export const defaultAgentColor = "#6366f1";

/** The first letter of a name, as an avatar shows it. */
export function initialOf(name: string): string {
  const first = [...name.trim()][0];
  return first ? first.toLocaleUpperCase() : "?";
}

/**
 * The agent's emoji on its colour; where this browser has no glyph for the
 * emoji (a host without an emoji font draws an empty box), the first letter
 * of its name instead.
 */
export function AgentAvatar({ emoji, name, color, size = 32 }: { emoji: string; name: string; color: string; size?: number }) {
  const shown = emoji && hasGlyph(emoji) ? emoji : initialOf(name);
  return (
    <span
      className="agent-avatar"
      aria-hidden="true"
      data-glyph={shown === emoji ? "emoji" : "initial"}
      style={{ width: size, height: size, fontSize: size * 0.5, background: `${color || defaultAgentColor}33`, borderColor: color || undefined }}
    >
      {shown}
    </span>
  );
}
