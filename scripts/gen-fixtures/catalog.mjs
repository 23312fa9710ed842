// The catalogue: the items of the three parts in order, rooms, hosts, promotions, FAQ.
import { WEAR_BEAUTY_ITEMS } from './items-wear-beauty.mjs';
import { FOOD_KITCHEN_ITEMS } from './items-food-kitchen.mjs';
import { GEAR_ITEMS } from './items-gear.mjs';

// ---------------------------------------------------------------------------------------------
// Catalogue: items, rooms, promotions, FAQ
// ---------------------------------------------------------------------------------------------
export const ITEMS = [...WEAR_BEAUTY_ITEMS, ...FOOD_KITCHEN_ITEMS, ...GEAR_ITEMS];
export const ITEM = Object.fromEntries(ITEMS.map((i) => [i.id, i]));

export const ROOMS = [
  { id: 'r-1021', name: 'Spring Picks 春日穿搭', items: ['i-01', 'i-02', 'i-03', 'i-04', 'i-22'] },
  { id: 'r-2048', name: 'Beauty Lab 美妆实验室', items: ['i-05', 'i-06', 'i-07', 'i-08', 'i-24'] },
  { id: 'r-3307', name: 'Snack Street 零食街', items: ['i-09', 'i-10', 'i-11', 'i-12'] },
  { id: 'r-4410', name: 'Kitchen Heroes 厨房好物', items: ['i-13', 'i-14', 'i-15', 'i-16', 'i-20'] },
  { id: 'r-5562', name: 'Gadget Hour 数码时间', items: ['i-17', 'i-18', 'i-19', 'i-21'] },
  { id: 'r-6603', name: 'Home & Active 居家运动', items: ['i-23', 'i-25', 'i-24', 'i-21', 'i-11'] },
];
export const ROOM = Object.fromEntries(ROOMS.map((r) => [r.id, r]));
export const HOSTS = ['小雅', 'Leo', '阿杰', 'Nina', '糖糖'];
export const DEFAULT_HOST = 'Mia'; // variables.host.name.default in harness.yaml

// Promotions live in each room. threshold: spend >= threshold, get `discount` off (best one wins);
// price_cut: per-item cut applied before thresholds.
export const ENDS = '2026-08-31 23:59';
export const PROMOS = {
  'r-1021': [
    { campaign_id: 'cp-1021-a', type: 'threshold', title: '满199减20', en: '¥20 off orders over ¥199', threshold: 199, discount: 20 },
    { campaign_id: 'cp-1021-b', type: 'price_cut', title: '直播间专享直降', en: 'live-only price cut', cuts: { 'i-01': 30, 'i-04': 50 } },
  ],
  'r-2048': [
    { campaign_id: 'cp-2048-a', type: 'threshold', title: '满299减40', en: '¥40 off orders over ¥299', threshold: 299, discount: 40 },
    { campaign_id: 'cp-2048-b', type: 'price_cut', title: '新品直降', en: 'new-arrival price cut', cuts: { 'i-05': 40, 'i-08': 30 } },
  ],
  'r-3307': [
    { campaign_id: 'cp-3307-a', type: 'threshold', title: '满99减10', en: '¥10 off orders over ¥99', threshold: 99, discount: 10 },
    { campaign_id: 'cp-3307-b', type: 'threshold', title: '满199减30', en: '¥30 off orders over ¥199', threshold: 199, discount: 30 },
    { campaign_id: 'cp-3307-c', type: 'price_cut', title: '爆款直降', en: 'best-seller price cut', cuts: { 'i-10': 10 } },
  ],
  'r-4410': [
    { campaign_id: 'cp-4410-a', type: 'threshold', title: '满299减30', en: '¥30 off orders over ¥299', threshold: 299, discount: 30 },
    { campaign_id: 'cp-4410-b', type: 'price_cut', title: '厨房节直降', en: 'kitchen-week price cut', cuts: { 'i-14': 30, 'i-20': 60 } },
  ],
  'r-5562': [
    { campaign_id: 'cp-5562-a', type: 'threshold', title: '满399减50', en: '¥50 off orders over ¥399', threshold: 399, discount: 50 },
    { campaign_id: 'cp-5562-b', type: 'price_cut', title: '数码直降', en: 'gadget price cut', cuts: { 'i-17': 50, 'i-19': 100 } },
  ],
  'r-6603': [
    { campaign_id: 'cp-6603-a', type: 'threshold', title: '满159减15', en: '¥15 off orders over ¥159', threshold: 159, discount: 15 },
    { campaign_id: 'cp-6603-b', type: 'price_cut', title: '运动季直降', en: 'active-season price cut', cuts: { 'i-23': 50 } },
  ],
};

export const FAQ = {
  'faq-return-7d': {
    question: '支持7天无理由退货吗？',
    answer: '签收后7天内，商品未使用且吊牌完好，可在订单页“申请售后”办理无理由退货。',
    answer_en: 'Unused items with tags can be returned within 7 days of delivery via After-sales on the order page.',
  },
  'faq-exchange-size': {
    question: '尺码不合适可以换吗？',
    answer: '服饰类签收7天内可免费换码一次，来回运费由店铺承担。',
    answer_en: 'Clothing can be exchanged for another size once within 7 days; the shop pays shipping both ways.',
  },
  'faq-refund-time': {
    question: '退款多久到账？',
    answer: '退货签收后48小时内审核，原路退回，一般1-3个工作日到账。',
    answer_en: 'Refunds are reviewed within 48 h of the return arriving and reach the original payment method in 1-3 business days.',
  },
  'faq-late-parcel': {
    question: '物流很慢/一直没收到货怎么办？',
    answer: '现货48小时内发出，可在订单页查看物流；物流超过7天未更新请联系客服催件。',
    answer_en: 'In-stock orders leave within 48 h; track them on the order page. If tracking has not moved for 7 days, contact customer service.',
  },
  'faq-damaged': {
    question: '收到的商品破损怎么办？',
    answer: '签收48小时内在订单页上传照片申请售后，核实后补发或退款。',
    answer_en: 'Upload photos on the order page within 48 h of delivery; after checking we resend or refund.',
  },
  'faq-food-return': {
    question: '食品可以退吗？',
    answer: '食品未拆封可7天无理由退货；拆封后仅支持质量问题退换。',
    answer_en: 'Unopened food can be returned within 7 days; opened food only for quality problems.',
  },
  'faq-warranty': {
    question: '数码电器怎么保修？',
    answer: '按商品页标注的保修期提供保修，凭订单联系客服即可。',
    answer_en: 'Electronics are covered for the warranty period shown on the item page; contact customer service with the order.',
  },
  'faq-lucky-draw': {
    question: '抽奖是几点？',
    answer: '今晚21:00整点抽奖，关注主播并加入粉丝团即可参与。',
    answer_en: 'The lucky draw is at 21:00 tonight; follow the host and join the fan club to take part.',
  },
  'faq-fan-club': {
    question: '怎么加入粉丝团？',
    answer: '点主播头像旁的“粉丝团”按钮，点亮一个粉丝灯牌即可加入。',
    answer_en: "Tap 'Fan club' next to the host's avatar and light up one fan badge to join.",
  },
  'faq-schedule': {
    question: '每天几点开播？',
    answer: '每天19:30-23:00直播，周末下午14:00加场。',
    answer_en: 'Live every day 19:30-23:00, with an extra show at 14:00 on weekends.',
  },
  'faq-ship-time': {
    question: '什么时候发货？',
    answer: '现货商品48小时内发货，预售商品以商品页时间为准。',
    answer_en: 'In-stock items ship within 48 h; pre-orders ship on the date shown on the item page.',
  },
  'faq-invoice': {
    question: '可以开发票吗？',
    answer: '支持电子发票，确认收货后在订单页申请。',
    answer_en: 'E-invoices are available: request one on the order page after delivery.',
  },
};
