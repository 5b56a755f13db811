import type { Sandbox, SandboxPool } from "../../api/types";
import { Pill } from "../../ui/Pill";
import { Tooltip } from "../../ui/Tooltip";
import { poolSize, useSandboxPool } from "./api/getSandboxPool";

const tones = { off: "neutral", ready: "ok", creating: "accent", waiting: "neutral", failing: "warn", stopped: "danger" } as const;

/** A warm pool's state with its counts; why it fails on hover or focus. */
export function PoolStatus({ pool }: { pool: SandboxPool }) {
  if (pool.state === "off") return null;
  const counts = [
    `${pool.ready}/${pool.size} ready`,
    pool.creating > 0 && `${pool.creating} creating`,
    pool.failures > 0 && `${pool.failures} failed in a row`,
    pool.retry_at && `tries again at ${new Date(pool.retry_at).toLocaleTimeString()}`,
  ].filter(Boolean);
  const pill = <Pill tone={tones[pool.state]}>pool {pool.state}</Pill>;
  return (
    <span className="health pool-status">
      {pool.detail ? (
        <Tooltip content={pool.detail}>
          <span className="health__trigger" tabIndex={0} aria-label={`Warm pool ${pool.state}: ${pool.detail}`}>
            {pill}
          </span>
        </Tooltip>
      ) : (
        <span className="health__trigger">
          <span className="visually-hidden">Warm </span>
          {pill}
        </span>
      )}
      <span className="muted">{counts.join(" · ")}</span>
    </span>
  );
}

/** The pool of a sandbox that keeps one, read from the sandbox's own view. */
export function SandboxPoolStatus({ sandbox }: { sandbox: Sandbox }) {
  const wanted = poolSize(sandbox) > 0;
  const { data } = useSandboxPool(sandbox.id, wanted);
  if (!wanted || !data) return null;
  return <PoolStatus pool={data} />;
}
