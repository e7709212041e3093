import { useSyncExternalStore } from 'react';
import { parseRoute, routeHash, type Route } from '../lib/route.ts';

function subscribe(listener: () => void): () => void {
  window.addEventListener('hashchange', listener);
  return () => window.removeEventListener('hashchange', listener);
}

const readHash = (): string => window.location.hash;

/** The current route; re-renders on every hash change. */
export function useHashRoute(): Route {
  return parseRoute(useSyncExternalStore(subscribe, readHash));
}

export function navigate(route: Route): void {
  window.location.hash = routeHash(route);
}
