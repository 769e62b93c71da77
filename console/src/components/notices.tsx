// Short notices after an action ("Flag saved, version 12"), announced politely by Radix Toast.
import * as Toast from '@radix-ui/react-toast';
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';

interface Notice {
  id: number;
  text: string;
}

const NoticeContext = createContext<(text: string) => void>(() => undefined);

export function NoticeProvider({ children }: { children: ReactNode }) {
  const [notices, setNotices] = useState<Notice[]>([]);
  const notify = useCallback(
    (text: string) => setNotices((list) => [...list, { id: Date.now() + Math.random(), text }]),
    [],
  );
  return (
    <NoticeContext.Provider value={notify}>
      <Toast.Provider swipeDirection="right" duration={5000}>
        {children}
        {notices.map((notice) => (
          <Toast.Root
            key={notice.id}
            className="toast"
            onOpenChange={(open) => {
              if (!open) setNotices((list) => list.filter((n) => n.id !== notice.id));
            }}
          >
            <Toast.Description>{notice.text}</Toast.Description>
            <Toast.Close className="button button-small" aria-label="Dismiss">
              ×
            </Toast.Close>
          </Toast.Root>
        ))}
        <Toast.Viewport className="toast-viewport" label="Notifications ({hotkey})" />
      </Toast.Provider>
    </NoticeContext.Provider>
  );
}

export function useNotify(): (text: string) => void {
  return useContext(NoticeContext);
}
