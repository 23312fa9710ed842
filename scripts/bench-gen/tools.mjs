// The 12 OpenAI function tools of the benchmark harness.
import { CATEGORIES, COLORS, SIZES } from './rules.mjs';

// ---------------------------------------------------------------------------------------------
// tools

export const S = (description, extra = {}) => ({ type: 'string', description, ...extra });
export const ITEM_ID = { type: 'string', description: 'Item id from the room list, e.g. "i-17".', pattern: '^i-[0-9]{2,4}$' };
export const fn = (name, description, properties, required) => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } },
});
export const DETAIL_FIELDS = ['material', 'sizes', 'colors', 'specs', 'ingredients', 'stock', 'shipping', 'warranty', 'care', 'origin'];
export const PROMO_TYPES = ['coupon', 'flash_sale', 'bundle', 'gift', 'member_price', 'full_reduction'];
export const ORDER_INCLUDE = ['logistics', 'items', 'payment', 'aftersale_history'];
export const TICKET_TYPES = ['return', 'exchange', 'refund_only', 'repair'];
export const REASON_CODES = ['wrong_size', 'damaged', 'not_as_described', 'late_delivery', 'changed_mind', 'missing_parts'];
export const FAQ_CATS = ['returns', 'shipping', 'payment', 'giveaway', 'fan_club', 'schedule', 'invoice'];
export const FLAG_CATS = ['spam', 'abuse', 'off_topic', 'personal_data', 'competitor_ad', 'fraud'];

export const TOOL_FILES = {
  'catalog.json': [
    fn(
      'get_item_detail',
      'Look up facts about one item in the room: material, sizes, colours, specifications, ingredients, stock, shipping and warranty. 查询商品详情；不返回价格。',
      {
        item_id: ITEM_ID,
        fields: {
          type: 'array',
          description: 'Fields to return; omit for all.',
          items: { type: 'string', enum: DETAIL_FIELDS },
          minItems: 1,
          uniqueItems: true,
        },
        locale: { type: 'string', description: 'Language of the returned text.', enum: ['zh-CN', 'en-US'], default: 'zh-CN' },
      },
      ['item_id'],
    ),
    fn(
      'search_items',
      'Search the shop catalogue by keyword for items not in the room list, or for alternatives. 按关键词搜索店铺商品。',
      {
        query: S('Keywords in Chinese or English, e.g. "防晒" or "running shoes".', { minLength: 1, maxLength: 60 }),
        filters: {
          type: 'object',
          description: 'Optional filters.',
          additionalProperties: false,
          properties: {
            category: { type: 'string', enum: CATEGORIES.map((c) => c[0]) },
            price_range: {
              type: 'object',
              description: 'List price range in CNY.',
              additionalProperties: false,
              properties: { min: { type: 'number', minimum: 0 }, max: { type: 'number', minimum: 0 } },
            },
            in_stock: { type: 'boolean', description: 'Only items with stock.' },
          },
        },
        sort: { type: 'string', enum: ['relevance', 'price_asc', 'price_desc', 'sales'], default: 'relevance' },
        limit: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
      },
      ['query'],
    ),
    fn(
      'check_inventory',
      'Check stock for specific SKUs (colour and size) of items in the room. 查询指定规格库存。',
      {
        items: {
          type: 'array',
          minItems: 1,
          maxItems: 5,
          description: 'SKUs to check.',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['item_id'],
            properties: {
              item_id: ITEM_ID,
              sku: {
                type: 'object',
                additionalProperties: false,
                properties: { color: S('Colour name.', { enum: COLORS }), size: S('Size label.', { enum: SIZES }) },
              },
            },
          },
        },
        warehouse: { type: 'string', enum: ['auto', 'east', 'south', 'bonded'], default: 'auto' },
      },
      ['items'],
    ),
  ],
  'promotions.json': [
    fn(
      'get_room_promotions',
      'List the live campaigns of the room: coupons, flash sales, bundles, gifts. 获取直播间当前优惠活动。',
      {
        room_id: S('Room id from the room context.', { pattern: '^room-[0-9]{6}$' }),
        types: { type: 'array', items: { type: 'string', enum: PROMO_TYPES }, uniqueItems: true, description: 'Campaign types; omit for all.' },
        include_expired: { type: 'boolean', default: false },
      },
      ['room_id'],
    ),
    fn(
      'calculate_optimal_promotion',
      'Compute the best final price for an item and quantity with every applicable campaign. 计算最优到手价。',
      {
        item_id: ITEM_ID,
        quantity: { type: 'integer', minimum: 1, maximum: 99, default: 1 },
        user_tier: { type: 'string', enum: ['guest', 'member', 'fan_club', 'vip'], description: 'Viewer membership tier when known.' },
        coupon_codes: {
          type: 'array',
          items: { type: 'string', pattern: '^[A-Z0-9-]{4,16}$' },
          maxItems: 3,
          description: 'Coupons the viewer says they hold.',
        },
      },
      ['item_id', 'quantity'],
    ),
    fn(
      'get_campaign_conditions',
      'Conditions of one campaign: threshold, per-user limit, end time, eligible items. 查询活动规则。',
      {
        campaign_id: S('Campaign id, e.g. "cmp-0412".', { pattern: '^cmp-[0-9]{4}$' }),
        item_id: ITEM_ID,
      },
      ['campaign_id'],
    ),
  ],
  'orders.json': [
    fn(
      'query_order_status',
      "Look up a viewer's order by its 16-digit number: status, logistics, items. 查询订单状态与物流。",
      {
        order_id: S('16-digit order number.', { pattern: '^[0-9]{16}$' }),
        include: { type: 'array', items: { type: 'string', enum: ORDER_INCLUDE }, uniqueItems: true, description: 'Extra sections.' },
      },
      ['order_id'],
    ),
    fn(
      'create_aftersale_ticket',
      'Open an after-sales ticket (return, exchange, refund, repair) for an order. 创建售后工单。',
      {
        order_id: S('16-digit order number.', { pattern: '^[0-9]{16}$' }),
        type: { type: 'string', enum: TICKET_TYPES },
        reason: {
          type: 'object',
          additionalProperties: false,
          required: ['code'],
          properties: { code: { type: 'string', enum: REASON_CODES }, detail: S("The viewer's own words, shortened.", { maxLength: 200 }) },
        },
        items: {
          type: 'array',
          minItems: 1,
          description: 'Order lines concerned.',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['item_id', 'quantity'],
            properties: { item_id: ITEM_ID, quantity: { type: 'integer', minimum: 1, maximum: 20 } },
          },
        },
        contact: {
          type: 'object',
          additionalProperties: false,
          required: ['channel'],
          properties: { channel: { type: 'string', enum: ['in_app', 'sms', 'email'] }, note: S('Preferred contact time.', { maxLength: 80 }) },
        },
      },
      ['order_id', 'type', 'reason', 'items'],
    ),
  ],
  'engagement.json': [
    fn(
      'lookup_faq',
      "Search the room's FAQ entries (returns, shipping, payment, giveaways, fan club, schedule). 检索常见问题。",
      {
        question: S("The viewer's question in their own words.", { minLength: 1, maxLength: 200 }),
        category: { type: 'string', enum: FAQ_CATS },
        top_k: { type: 'integer', minimum: 1, maximum: 5, default: 3 },
      },
      ['question'],
    ),
    fn(
      'recommend_bundle',
      'Suggest items that go with an anchor item within a budget. 根据预算推荐搭配。',
      {
        anchor_item_id: ITEM_ID,
        budget: {
          type: 'object',
          additionalProperties: false,
          required: ['amount'],
          properties: { amount: { type: 'number', exclusiveMinimum: 0 }, currency: { type: 'string', enum: ['CNY', 'USD'], default: 'CNY' } },
        },
        style_tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 20 }, maxItems: 5 },
      },
      ['anchor_item_id', 'budget'],
    ),
    fn(
      'flag_comment',
      'Flag a chat comment for the moderators. 标记违规弹幕。',
      {
        comment_id: S('Comment id, e.g. "cm-00012345".', { pattern: '^cm-[0-9]{8}$' }),
        category: { type: 'string', enum: FLAG_CATS },
        severity: { type: 'string', enum: ['low', 'medium', 'high'] },
        note: S('Short reason for the moderators.', { maxLength: 120 }),
      },
      ['comment_id', 'category', 'severity'],
    ),
  ],
  'load_skill.json': [
    fn(
      'load_skill',
      'Load a skill by name and return its full instructions. Use a skill name listed in the system prompt.',
      {
        name: S('Skill name exactly as listed in the system prompt.'),
      },
      ['name'],
    ),
  ],
};
