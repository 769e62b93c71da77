import { useSyncExternalStore } from 'react';
import { getSession, onSessionChange, type Session } from './session';

export function useSession(): Session | null {
  return useSyncExternalStore(onSessionChange, getSession, () => null);
}
