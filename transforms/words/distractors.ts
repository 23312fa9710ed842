import type { JsonSchema } from '../../src/harness/types.js';

/** Plausible tools a harness might list; distractor transforms add some that are never called. */
export const distractorTools: { name: string; description: string; parameters: JsonSchema }[] = [
  {
    name: 'get_shipping_eta',
    description: 'Estimate the delivery date of an item to a region.',
    parameters: { type: 'object', properties: { sku: { type: 'string', description: 'Item identifier.' }, region: { type: 'string', description: 'Province or city.' } }, required: ['sku'] },
  },
  {
    name: 'get_host_schedule',
    description: 'List upcoming live sessions of this host.',
    parameters: { type: 'object', properties: { days_ahead: { type: 'integer', minimum: 1, maximum: 14 } } },
  },
  {
    name: 'check_stock_level',
    description: 'Return the remaining stock of an item and its variants.',
    parameters: { type: 'object', properties: { sku: { type: 'string' }, variant: { type: 'string', description: 'Colour or size label.' } }, required: ['sku'] },
  },
  {
    name: 'get_size_chart',
    description: 'Fetch the size chart of an apparel item.',
    parameters: { type: 'object', properties: { sku: { type: 'string' }, unit: { type: 'string', enum: ['cm', 'inch'] } }, required: ['sku'] },
  },
  {
    name: 'list_bundle_offers',
    description: 'List bundle offers that include an item.',
    parameters: { type: 'object', properties: { sku: { type: 'string' }, max_results: { type: 'integer', minimum: 1, maximum: 20 } }, required: ['sku'] },
  },
  {
    name: 'get_review_summary',
    description: 'Summarise buyer reviews of an item: rating, common praise and complaints.',
    parameters: { type: 'object', properties: { sku: { type: 'string' }, language: { type: 'string', enum: ['zh', 'en'] } }, required: ['sku'] },
  },
  {
    name: 'translate_text',
    description: 'Translate a short text between Chinese and English.',
    parameters: { type: 'object', properties: { text: { type: 'string' }, target: { type: 'string', enum: ['zh', 'en'] } }, required: ['text', 'target'] },
  },
  {
    name: 'get_lottery_status',
    description: 'Show whether a lucky draw is running in the room and how to join.',
    parameters: { type: 'object', properties: { channel_id: { type: 'string' } }, required: ['channel_id'] },
  },
  {
    name: 'get_warranty_policy',
    description: 'Return the warranty terms of a product category.',
    parameters: { type: 'object', properties: { category: { type: 'string' } }, required: ['category'] },
  },
  {
    name: 'record_viewer_feedback',
    description: 'Save a viewer comment for the operations team.',
    parameters: { type: 'object', properties: { comment: { type: 'string' }, sentiment: { type: 'string', enum: ['positive', 'neutral', 'negative'] } }, required: ['comment'] },
  },
  {
    name: 'get_exchange_rate',
    description: 'Convert a price between currencies at today\'s rate.',
    parameters: { type: 'object', properties: { amount: { type: 'number' }, from_currency: { type: 'string' }, to_currency: { type: 'string' } }, required: ['amount', 'from_currency', 'to_currency'] },
  },
  {
    name: 'get_store_hours',
    description: 'Opening hours of the customer service desk.',
    parameters: { type: 'object', properties: {} },
  },
];

/** Plausible skills a catalog might list; distractor transforms add some that are never loaded. */
export const distractorSkills: { name: string; description: string; kind: 'reply' | 'strategy'; body: string }[] = [
  { name: 'size_advice', kind: 'reply', description: 'Recommend a size from the viewer\'s height and weight.', body: '# Size advice\n\n- Ask for height and weight if missing.\n- Recommend one size and say why.' },
  { name: 'lottery_notice', kind: 'reply', description: 'Explain how the room\'s lucky draw works.', body: '# Lucky draw\n\n- Say when the draw closes.\n- Never promise a prize.' },
  { name: 'shipping_notice', kind: 'reply', description: 'Answer questions about delivery times and carriers.', body: '# Shipping\n\n- Give the usual delivery window.\n- Point to the order page for tracking.' },
  { name: 'bundle_strategy', kind: 'strategy', description: 'Find and explain bundle offers for several items.', body: '# Bundles\n\n1. List the items mentioned.\n2. Look up bundles that include them.\n3. Reply with the cheapest bundle.' },
  { name: 'review_digest', kind: 'reply', description: 'Summarise what other buyers say about an item.', body: '# Reviews\n\n- Mention the rating first.\n- One praise, one complaint.' },
  { name: 'care_instructions', kind: 'reply', description: 'Explain washing and care of fabrics and materials.', body: '# Care\n\n- Follow the label.\n- Cold wash for delicate fabrics.' },
  { name: 'gift_wrap', kind: 'reply', description: 'Explain gift wrapping and greeting-card options.', body: '# Gift wrap\n\n- Say whether wrapping is free.\n- Cards are added at checkout.' },
  { name: 'restock_strategy', kind: 'strategy', description: 'Tell viewers when a sold-out item comes back.', body: '# Restock\n\n1. Check the stock level.\n2. Give the restock date if known.' },
  { name: 'warranty_reply', kind: 'reply', description: 'Explain warranty coverage and claims.', body: '# Warranty\n\n- Name the warranty period.\n- Explain how to file a claim.' },
];
