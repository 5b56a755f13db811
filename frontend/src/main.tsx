import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App, createQueryClient } from "./app/App";
import { preloadScreen } from "./app/routes";
import { prefetchMe } from "./session/me";
import { tokenStore } from "./shared/tokenStore";
import "./ui/tokens.css";
import "./ui/base.css";
import "./ui/components.css";
import "./app/shell.css";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root");
// The session's check, the screen's code and its data are asked for at once,
// before the first render, rather than one after the other; and the first
// render waits a moment for them, so that the shell and the screen show
// together rather than "Signing in…" first.
const firstRenderWaitsMs = 200;
const queryClient = createQueryClient();
const firstScreen = Promise.all([
  prefetchMe(queryClient),
  preloadScreen(queryClient, window.location.pathname, tokenStore.get() !== null),
]);
const aMoment = new Promise((resolve) => setTimeout(resolve, firstRenderWaitsMs));
void Promise.race([firstScreen, aMoment]).then(() =>
  createRoot(root).render(
    <StrictMode>
      <App queryClient={queryClient} />
    </StrictMode>,
  ),
);
