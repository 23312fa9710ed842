// The plan: how many records of each intent, the language split, variants and gated records.
import { shuffle } from './common.mjs';
import { SEARCHES, MULTI, productQa, chat } from './intents-qa-chat.mjs';
import { clarification, AFTERSALE, aftersale, discount, order, FAQ_CASES, faq, refusal } from './intents-service.mjs';

// ---------------------------------------------------------------------------------------------
// The plan: how many records of each intent, language split, variants, gated records
// ---------------------------------------------------------------------------------------------

export const PLAN = { product_qa: 84, chat: 35, clarification: 29, aftersale: 13, discount: 8, order: 4, faq: 4, refusal: 1 };
export const GATED = { product_qa: 7, chat: 3, clarification: 1, aftersale: 2, discount: 1, faq: 1 };

export function variantsFor(intent, n) {
  // A fixed, readable mix per intent (then shuffled with the rest of the plan).
  const spread = (pairs) => {
    const out = [];
    for (const [count, v] of pairs) for (let i = 0; i < count; i++) out.push({ ...v });
    while (out.length < n) out.push({ ...pairs[0][1] });
    return out.slice(0, n);
  };
  switch (intent) {
    case 'product_qa':
      return spread([
        [30, { variant: 'fact' }],
        [12, { variant: 'fact', multiTurn: true }],
        [8, { variant: 'price' }],
        [4, { variant: 'price', multiTurn: true }],
        [6, { variant: 'fact_price' }],
        [3, { variant: 'fact_price', multiTurn: true }],
        [6, { variant: 'compare' }],
        [3, { variant: 'compare', multiTurn: true }],
        [5, { variant: 'search' }],
        [6, { variant: 'multi' }],
      ]);
    case 'chat':
      return spread([
        [9, { kind: 'greet' }],
        [12, { kind: 'chillchat' }],
        [7, { kind: 'thanks' }],
        [3, { kind: 'greet', multiTurn: true }],
        [2, { kind: 'chillchat', multiTurn: true }],
        [1, { kind: 'thanks', multiTurn: true }],
      ]);
    case 'clarification':
      return spread([
        [4, { variant: 'which' }],
        [9, { variant: 'which', multiTurn: true }],
        [5, { variant: 'info' }],
        [11, { variant: 'info', multiTurn: true }],
      ]);
    case 'aftersale':
      return spread([
        [10, {}],
        [3, { multiTurn: true }],
      ]);
    case 'discount':
      return spread([
        [2, { variant: 'room' }],
        [2, { variant: 'conditions' }],
        [2, { variant: 'basket' }],
        [2, { variant: 'benefit' }],
      ]);
    case 'order':
      return spread([
        [2, {}],
        [1, { checkStock: true }],
        [1, { position: 2 }],
      ]);
    default:
      return spread([[n, {}]]);
  }
}

export const BUILD = { product_qa: productQa, chat, clarification, aftersale, discount, order, faq, refusal };

export function makePlan() {
  const plan = [];
  for (const [intent, n] of Object.entries(PLAN)) {
    const variants = shuffle(variantsFor(intent, n));
    const langs = shuffle(Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 'zh' : 'en')));
    const gatedIdx = new Set(shuffle([...Array(n).keys()]).slice(0, GATED[intent] ?? 0));
    for (let i = 0; i < n; i++) plan.push({ intent, lang: langs[i], gate: gatedIdx.has(i), ...variants[i] });
  }
  // Multi-comment cases carry their own language; give each one exactly once.
  const multis = plan.filter((p) => p.variant === 'multi');
  multis.forEach((p, i) => {
    p.multi = MULTI[i % MULTI.length];
    p.lang = p.multi.lang;
  });
  // Every search case and every FAQ case appears at least once.
  plan.filter((p) => p.variant === 'search').forEach((p, i) => (p.search = SEARCHES[i % SEARCHES.length]));
  plan.filter((p) => p.intent === 'faq').forEach((p, i) => (p.case = FAQ_CASES[i % FAQ_CASES.length]));
  plan.filter((p) => p.intent === 'aftersale' && !p.multiTurn).forEach((p, i) => (p.case = AFTERSALE[i % AFTERSALE.length]));
  return shuffle(plan);
}
