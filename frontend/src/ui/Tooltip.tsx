import {
  cloneElement,
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type CSSProperties,
  type FocusEvent,
  type PointerEvent,
  type ReactElement,
  type ReactNode,
} from "react";
import { createPortal } from "react-dom";
import { placeTooltip, type Placement } from "./placeTooltip";

/** How long the pointer rests on a trigger before its tooltip shows. */
const openDelayMs = 300;
/** Within this long of one tooltip closing, the next opens at once (moving along a row of buttons). */
const skipDelayMs = 300;
/** Time to cross the gap from the trigger into the tooltip, which stays open while hovered. */
const closeGraceMs = 100;

let lastClosedAt = 0;

type TriggerProps = {
  "aria-describedby"?: string;
  onPointerEnter?: (event: PointerEvent<HTMLElement>) => void;
  onPointerLeave?: (event: PointerEvent<HTMLElement>) => void;
  onPointerDown?: (event: PointerEvent<HTMLElement>) => void;
  onFocus?: (event: FocusEvent<HTMLElement>) => void;
  onBlur?: (event: FocusEvent<HTMLElement>) => void;
};

interface TooltipProps {
  content: ReactNode;
  /** A focusable element; it is described by the tooltip while that shows. */
  children: ReactElement<TriggerProps>;
}

/**
 * Shows content above its child (below when there is no room) when the
 * pointer rests on it or the keyboard focuses it; Escape, moving away,
 * blurring or pressing the child hide it. The tooltip can itself be hovered.
 * Its code is a few functions, not a library: it is on every screen's first
 * render.
 */
export function Tooltip({ content, children }: TooltipProps) {
  const id = useId();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const shown = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const pressed = useRef(false);

  const cancel = () => clearTimeout(timer.current);
  const show = useCallback((target: HTMLElement) => {
    clearTimeout(timer.current);
    shown.current = true;
    setAnchor(target);
  }, []);
  const hide = useCallback(() => {
    clearTimeout(timer.current);
    if (shown.current) lastClosedAt = Date.now();
    shown.current = false;
    setAnchor(null);
  }, []);
  const later = (action: () => void, ms: number) => {
    cancel();
    timer.current = setTimeout(action, ms);
  };
  useEffect(() => cancel, []);

  const own = children.props;
  const trigger = cloneElement(children, {
    "aria-describedby": anchor ? [own["aria-describedby"], id].filter(Boolean).join(" ") : own["aria-describedby"],
    onPointerEnter: (event) => {
      own.onPointerEnter?.(event);
      if (event.pointerType === "touch") return;
      const target = event.currentTarget;
      if (Date.now() - lastClosedAt < skipDelayMs) show(target);
      else later(() => show(target), openDelayMs);
    },
    onPointerLeave: (event) => {
      own.onPointerLeave?.(event);
      later(hide, closeGraceMs);
    },
    onPointerDown: (event) => {
      own.onPointerDown?.(event);
      pressed.current = true; // the focus that follows is the pointer's, not the keyboard's
      hide();
    },
    onFocus: (event) => {
      own.onFocus?.(event);
      if (!pressed.current) show(event.currentTarget);
      pressed.current = false;
    },
    onBlur: (event) => {
      own.onBlur?.(event);
      pressed.current = false;
      hide();
    },
  });

  return (
    <>
      {trigger}
      {anchor &&
        createPortal(
          <TooltipContent id={id} anchor={anchor} onHover={cancel} onLeave={() => later(hide, closeGraceMs)} onDismiss={hide}>
            {content}
          </TooltipContent>,
          document.body,
        )}
    </>
  );
}

interface ContentProps {
  id: string;
  anchor: HTMLElement;
  children: ReactNode;
  onHover: () => void;
  onLeave: () => void;
  onDismiss: () => void;
}

function TooltipContent({ id, anchor, children, onHover, onLeave, onDismiss }: ContentProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [placement, setPlacement] = useState<Placement | null>(null);

  useLayoutEffect(() => {
    const place = () => {
      const tip = ref.current;
      if (!tip) return;
      const viewport = { width: document.documentElement.clientWidth, height: document.documentElement.clientHeight };
      setPlacement(placeTooltip(anchor.getBoundingClientRect(), { width: tip.offsetWidth, height: tip.offsetHeight }, viewport));
    };
    place();
    window.addEventListener("scroll", place, true);
    window.addEventListener("resize", place);
    return () => {
      window.removeEventListener("scroll", place, true);
      window.removeEventListener("resize", place);
    };
  }, [anchor, children]);

  useEffect(() => {
    // Escape closes the tooltip only, not a dialog it sits in: the window's
    // capture phase comes before the dialog's listener on the document.
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      event.stopPropagation();
      onDismiss();
    };
    window.addEventListener("keydown", onKeyDown, true);
    return () => window.removeEventListener("keydown", onKeyDown, true);
  }, [onDismiss]);

  const style: CSSProperties = placement
    ? { left: placement.x, top: placement.y }
    : { left: 0, top: 0, visibility: "hidden" }; // measured before it is shown
  return (
    <div
      ref={ref}
      id={id}
      role="tooltip"
      className="tooltip"
      data-side={placement?.side}
      style={style}
      onPointerEnter={onHover}
      onPointerLeave={onLeave}
    >
      {children}
      <span className="tooltip__arrow" aria-hidden="true" style={{ left: placement?.arrowX }} />
    </div>
  );
}
