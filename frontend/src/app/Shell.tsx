import { BarChart3, Bot, KeyRound, LogOut, Menu, ScrollText, Server, SquareTerminal, Users, X } from "lucide-react";
import { type ReactNode, useEffect, useState } from "react";
import { NavLink, Outlet, useLocation } from "react-router-dom";
import { useSession } from "../session/SessionContext";
import { Pill } from "../ui/Pill";
import { useNarrow } from "../ui/useNarrow";
import { QuotaBanner } from "./QuotaBanner";

function RailLink({ to, icon, children }: { to: string; icon: ReactNode; children: ReactNode }) {
  return (
    <li>
      <NavLink to={to} className={({ isActive }) => (isActive ? "rail__link rail__link--active" : "rail__link")}>
        {icon}
        <span>{children}</span>
      </NavLink>
    </li>
  );
}

/**
 * On a narrow window the rail folds to its brand and a menu button, opened
 * on demand and closed again by the page it leads to.
 */
function useFoldedRail() {
  const narrow = useNarrow();
  const [open, setOpen] = useState(false);
  const { pathname } = useLocation();
  useEffect(() => setOpen(false), [pathname]);
  return { narrow, shown: !narrow || open, open, toggle: () => setOpen((o) => !o) };
}

export function Shell() {
  const { me, isAdmin, signOut } = useSession();
  const rail = useFoldedRail();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <nav className="rail" aria-label="Main">
        <div className="rail__brand">
          <span className="rail__logo" aria-hidden="true">
            ▲
          </span>
          Auxilia
          {rail.narrow && (
            <button
              type="button"
              className="rail__menu"
              aria-expanded={rail.open}
              aria-controls="rail-menu"
              onClick={rail.toggle}
            >
              {rail.open ? <X size={16} aria-hidden="true" /> : <Menu size={16} aria-hidden="true" />}
              Menu
            </button>
          )}
        </div>
        <div className="rail__menu-body" id="rail-menu" hidden={!rail.shown}>
          <ul className="rail__links">
            <RailLink to="/agents" icon={<Bot size={16} aria-hidden="true" />}>
              Agents
            </RailLink>
            <RailLink to="/runs" icon={<SquareTerminal size={16} aria-hidden="true" />}>
              Runs
            </RailLink>
          </ul>
          <p className="rail__group" id="rail-settings">
            Settings
          </p>
          <ul className="rail__links" aria-labelledby="rail-settings">
            <RailLink to="/settings/sandboxes" icon={<Server size={16} aria-hidden="true" />}>
              Sandboxes
            </RailLink>
            <RailLink to="/settings/usage" icon={<BarChart3 size={16} aria-hidden="true" />}>
              Usage
            </RailLink>
            {isAdmin && (
              <RailLink to="/settings/tokens" icon={<KeyRound size={16} aria-hidden="true" />}>
                API tokens
              </RailLink>
            )}
            {isAdmin && (
              <RailLink to="/settings/people" icon={<Users size={16} aria-hidden="true" />}>
                People
              </RailLink>
            )}
            {isAdmin && (
              <RailLink to="/settings/audit" icon={<ScrollText size={16} aria-hidden="true" />}>
                Audit log
              </RailLink>
            )}
          </ul>
          <div className="rail__account">
            <div className="rail__who">
              <span className="truncate" title={me.name}>
                {me.name}
              </span>
              <Pill tone={isAdmin ? "accent" : "neutral"}>{me.role}</Pill>
            </div>
            <p className="rail__workspace truncate">
              <span className="visually-hidden">Workspace: </span>
              {me.workspace.name}
            </p>
            <button type="button" className="rail__signout" onClick={signOut}>
              <LogOut size={14} aria-hidden="true" /> Sign out
            </button>
          </div>
        </div>
      </nav>
      <main className="shell__main" id="main" tabIndex={-1}>
        <QuotaBanner />
        <Outlet />
      </main>
    </div>
  );
}
