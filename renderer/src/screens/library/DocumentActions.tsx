import { useState } from 'react';
import { useClient } from '../../state/contexts.ts';

interface DocumentActionsProps {
  collection: string;
  seq: number;
  filePath: string;
  onError: (error: unknown) => void;
}

/**
 * What can be done with a stored document's file: save it (a download of the bytes as
 * received) and, in the desktop app, open it in the system's own viewer.
 */
export function DocumentActions({ collection, seq, filePath, onError }: DocumentActionsProps) {
  const client = useClient();
  const [opening, setOpening] = useState(false);

  const open = async (): Promise<void> => {
    setOpening(true);
    onError(undefined);
    try {
      await client.api.openDocument({ collection, seq });
    } catch (reason) {
      onError(reason);
    } finally {
      setOpening(false);
    }
  };

  return (
    <>
      <a className="button button-secondary" href={client.pageSrc(filePath)} download title="The file as the server sent it">
        Save file
      </a>
      {client.transport === 'electron' && (
        <button type="button" className="button-secondary" onClick={() => void open()} disabled={opening}>
          Open in system viewer
        </button>
      )}
    </>
  );
}
