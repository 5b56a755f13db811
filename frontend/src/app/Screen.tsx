import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect, type ComponentType } from "react";
import { Loading } from "../ui/Loading";
import { ChunkFailed, lazyComponent, useLazyComponent, type LazyComponent } from "../ui/lazy";

/** A screen in a chunk of its own, with the data requests it starts while that chunk loads. */
export interface LazyScreen extends LazyComponent<object> {
  prefetch?: (client: QueryClient) => Promise<void>;
}

export function lazyScreen(importPage: () => Promise<{ default: ComponentType }>, prefetch?: LazyScreen["prefetch"]): LazyScreen {
  return { ...lazyComponent(() => importPage().then((module) => module.default)), prefetch };
}

/** A screen, shown as soon as its code is here, with its data requests started while the code loads. */
export function Screen({ screen }: { screen: LazyScreen }) {
  const queryClient = useQueryClient();
  const { Component: Page, error } = useLazyComponent(screen);
  useEffect(() => {
    void screen.prefetch?.(queryClient);
  }, [screen, queryClient]);
  if (Page) return <Page />;
  if (error) return <ChunkFailed part="This screen" />;
  return <Loading />;
}
