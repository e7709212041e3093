import { useState } from 'react';
import type { SessionInfo } from '../../../../crawler/protocol/api.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorNote } from '../../components/Notes.tsx';
import { useCollections } from '../../hooks/use-service.ts';
import { describeSession } from '../../lib/session.ts';
import { useClient } from '../../state/contexts.ts';

/**
 * That the collection holds a logged-in session (a cookie jar: its cookies are sent to the
 * sites they belong to, and never exported), with a way to forget it between crawls.
 */
export function SessionNotice({ collection, session, idle }: { collection: string; session: SessionInfo; idle: boolean }) {
  const client = useClient();
  const { reload } = useCollections();
  const [asking, setAsking] = useState(false);
  const [forgetting, setForgetting] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const forget = async (): Promise<void> => {
    setForgetting(true);
    setError(undefined);
    try {
      await client.api.forgetSession({ collection });
      setAsking(false);
      await reload();
    } catch (err) {
      setError(err);
    } finally {
      setForgetting(false);
    }
  };

  return (
    <div className="note session-notice" data-testid="session-notice">
      <p>{describeSession(session)}. Its cookies are sent only where they belong, and no export holds them.</p>
      <button type="button" className="button-secondary" onClick={() => setAsking(true)} disabled={!idle} title={idle ? undefined : 'Stop the crawl first'}>
        Forget session
      </button>
      <ConfirmDialog
        open={asking}
        title="Forget this session?"
        confirmLabel={forgetting ? 'Forgetting…' : 'Forget session'}
        busy={forgetting}
        onConfirm={() => void forget()}
        onCancel={() => setAsking(false)}
      >
        <p>
          The {session.cookies} cookie{session.cookies === 1 ? '' : 's'} of this collection will be removed. Later crawls and refreshes will
          not be logged in; pages already stored stay.
        </p>
        <ErrorNote error={error} />
      </ConfirmDialog>
    </div>
  );
}
