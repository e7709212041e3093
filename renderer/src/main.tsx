import { startTransition, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createClient } from './api/client.ts';
import { App } from './components/App.tsx';
import { startPerfHook } from './perf.ts';
import { ServiceStore } from './state/service-store.ts';
import './styles.css';

startPerfHook();

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element');
const root = createRoot(container);
// A transition renders in slices, so starting up never blocks the page in one long task.
startTransition(() => {
  root.render(
    <StrictMode>
      <App client={createClient()} store={new ServiceStore()} />
    </StrictMode>,
  );
});
