import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blendRelevance, LabelModel, MIN_LABELS_PER_CLASS } from '../../../../crawler/relevance/labels.ts';
import { termCounts } from '../../../../crawler/relevance/text.ts';

const RELEVANT = [
  'TCP sockets: bind, listen and accept connections on a server port',
  'A network server accepts socket connections from many clients',
  'Non-blocking sockets and select for network protocols',
  'UDP datagrams are sent to a host and port through a socket',
  'The server closes the client socket when the connection ends',
];
const IRRELEVANT = [
  'Bake the bread at high heat until the crust is golden',
  'A recipe for tomato soup with garlic, basil and olive oil',
  'Whisk the eggs with sugar, then fold in the flour gently',
  'Roast vegetables with rosemary and serve with rice',
  'Simmer the sauce slowly and season it with pepper',
];

test('the classifier learns a separable toy set', () => {
  const model = new LabelModel();
  model.train([...RELEVANT.map((text) => ({ text, relevant: true })), ...IRRELEVANT.map((text) => ({ text, relevant: false }))]);
  assert.equal(model.ready, true);
  assert.equal(model.labelCount, 10);
  const network = model.probabilityRelevant('How a server handles socket connections from clients over the network');
  const cooking = model.probabilityRelevant('Fold the flour into the eggs and bake the bread');
  assert.ok(network > 0.5, `network text: ${network}`);
  assert.ok(cooking < 0.5, `cooking text: ${cooking}`);
  assert.equal(model.probabilityRelevant(termCounts('socket server network')), model.probabilityRelevant('socket server network'), 'term counts and text agree');
  const title = 'Socket servers';
  const body = 'The server accepts network connections; bake bread meanwhile';
  assert.equal(
    model.probabilityRelevant({ titleTerms: termCounts(title), bodyTerms: termCounts(body) }),
    model.probabilityRelevant(`${title}\n${body}`),
    'title and body term counts agree with the text',
  );
  // Every training example lands on its own side.
  for (const text of RELEVANT) assert.ok(model.probabilityRelevant(text) > 0.5, text);
  for (const text of IRRELEVANT) assert.ok(model.probabilityRelevant(text) < 0.5, text);
});

test('not ready until there are enough labels of each class', () => {
  const model = new LabelModel();
  assert.equal(model.ready, false);
  model.train([
    ...RELEVANT.map((text) => ({ text, relevant: true })),
    ...IRRELEVANT.slice(0, MIN_LABELS_PER_CLASS - 1).map((text) => ({ text, relevant: false })),
  ]);
  assert.equal(model.ready, false);
  assert.equal(model.probabilityRelevant(RELEVANT[0]!), 0.5, 'no opinion before it is ready');
  model.train([
    ...RELEVANT.slice(0, MIN_LABELS_PER_CLASS).map((text) => ({ text, relevant: true })),
    ...IRRELEVANT.slice(0, MIN_LABELS_PER_CLASS).map((text) => ({ text, relevant: false })),
  ]);
  assert.equal(model.ready, true);
  assert.ok(model.probabilityRelevant(RELEVANT[4]!) > model.probabilityRelevant(IRRELEVANT[4]!));
});

test('imbalanced labels do not drown the smaller class', () => {
  const model = new LabelModel();
  const manyCooking = IRRELEVANT.flatMap((text) => [text, `${text} tonight`, `${text} for dinner`]);
  model.train([...RELEVANT.slice(0, 3).map((text) => ({ text, relevant: true })), ...manyCooking.map((text) => ({ text, relevant: false }))]);
  assert.ok(model.probabilityRelevant('socket connections to a network server') > 0.5);
});

test('blendRelevance: no vote or an undecided vote leaves the similarity; more labels move it further', () => {
  assert.equal(blendRelevance(0.12, undefined, 50), 0.12);
  assert.equal(blendRelevance(0.12, 0.5, 50), 0.12);
  assert.equal(blendRelevance(0.12, 0.9, 0), 0.12);
  const few = blendRelevance(0.12, 0.9, 6);
  const many = blendRelevance(0.12, 0.9, 200);
  assert.ok(few > 0.12 && many > few, `${few} ${many}`);
  assert.ok(blendRelevance(0.12, 0.1, 200) < blendRelevance(0.12, 0.1, 6));
  assert.equal(blendRelevance(0.05, 0, 1_000), 0, 'clamped below');
  assert.equal(blendRelevance(0.95, 1, 1_000), 1, 'clamped above');
});
