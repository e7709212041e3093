import { createContext, useContext } from 'react';
import type { ServiceInfo } from '../../../crawler/protocol/api.ts';
import type { ForagerClient } from '../api/client.ts';
import type { ServiceStore } from './service-store.ts';

export const ClientContext = createContext<ForagerClient | null>(null);
export const StoreContext = createContext<ServiceStore | null>(null);
export const InfoContext = createContext<ServiceInfo | null>(null);

function required<T>(value: T | null, what: string): T {
  if (value === null) throw new Error(`${what} is used outside its provider`);
  return value;
}

export function useClient(): ForagerClient {
  return required(useContext(ClientContext), 'the API client');
}

export function useStore(): ServiceStore {
  return required(useContext(StoreContext), 'the service store');
}

export function useInfo(): ServiceInfo {
  return required(useContext(InfoContext), 'the service info');
}
