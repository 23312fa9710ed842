// Catalogue items, part 1: clothing and beauty (i-01 … i-08).

// Each item: list price, display title, short names for replies ({zh,en}), how a viewer refers to
// it when it is on camera vs. named ({it}), the detail record get_item_detail serves, Q&A facts,
// and optionally a clarification flow (the viewer's question lacks something we must ask for).

export const WEAR_BEAUTY_ITEMS = [
  {
    id: 'i-01',
    price: 199,
    title: 'Linen midi dress 亚麻中长连衣裙',
    zh: '亚麻裙',
    en: 'the linen dress',
    it: { zh: ['这条裙子', '亚麻裙'], en: ['this dress', 'the linen dress'] },
    detail: {
      material: '100% linen, 160 g/m², cotton-lined bodice',
      sizes: 'S 155-160 cm/42-49 kg; M 160-165 cm/50-57 kg; L 165-170 cm/58-64 kg; XL 170-175 cm/65-72 kg',
      colors: ['oat', 'sage green', 'black'],
      care: 'gentle machine wash in a laundry bag, cold water; hang dry; no tumble dryer',
      stock: { S: 42, M: 88, L: 61, XL: 17 },
      shipping: 'ships within 48 h from Hangzhou, free shipping',
    },
    facts: [
      {
        fields: ['material'],
        q: { zh: ['{it}是什么面料呀？', '{it}亚麻的会扎皮肤吗'], en: ['what is {it} made of?', 'is {it} scratchy? linen sometimes is'] },
        a: { zh: '100%亚麻，160克厚度，上身有棉衬里，不扎皮肤～', en: "100% linen at 160 g/m² with a cotton-lined top, so it's not scratchy." },
      },
      {
        fields: ['care'],
        q: { zh: ['{it}能机洗吗？'], en: ['can I machine wash {it}?'] },
        a: { zh: '可以，装洗衣袋冷水轻柔洗，挂着晾干，别烘干哦～', en: 'Yes: gentle cold cycle in a laundry bag, then hang dry. No tumble dryer.' },
      },
      {
        fields: ['colors'],
        q: { zh: ['{it}有几个颜色？'], en: ['what colours does {it} come in?'] },
        a: { zh: '有燕麦色、鼠尾草绿和黑色三个颜色～', en: 'Three colours: oat, sage green and black.' },
      },
    ],
    clarify: {
      fields: ['sizes'],
      q: { zh: '{it}我穿什么码？', en: 'which size should I get in {it}?' },
      ask: { zh: '身高体重大概多少呀？我帮你看码～', en: "Happy to help! What's your height and weight?" },
      ans: { zh: '163，52公斤', en: '163 cm, 52 kg' },
      a: { zh: '163/52穿M码刚好，M码对应160-165cm、50-57kg～', en: 'M is your size: it fits 160-165 cm and 50-57 kg.' },
    },
  },
  {
    id: 'i-02',
    price: 159,
    title: 'Floral chiffon dress 碎花雪纺连衣裙',
    zh: '雪纺裙',
    en: 'the chiffon dress',
    it: { zh: ['这条裙子', '碎花雪纺裙'], en: ['this dress', 'the floral chiffon dress'] },
    detail: {
      material: 'polyester chiffon shell, viscose lining',
      sizes: 'S/M/L, relaxed fit; M for 48-58 kg',
      colors: ['blue floral', 'pink floral'],
      care: 'hand wash cold, do not wring',
      stock: { S: 30, M: 0, L: 25, restock: 'M back within 7 days' },
      shipping: 'ships within 72 h, free shipping',
    },
    facts: [
      {
        fields: ['material'],
        q: { zh: ['{it}透不透？', '{it}是什么料子'], en: ['is {it} see-through?'] },
        a: { zh: '外层雪纺，里面有粘胶衬里，不透的，放心～', en: "There's a viscose lining under the chiffon, so it's not see-through." },
      },
      {
        fields: ['stock'],
        q: { zh: ['{it}M码还有吗？'], en: ['is {it} still available in M?'] },
        a: { zh: 'M码刚抢完了，7天内补货，S和L码还有～', en: 'M just sold out and is back within 7 days; S and L are available.' },
      },
    ],
  },
  {
    id: 'i-03',
    plural: true,
    price: 179,
    title: 'High-waist wide-leg jeans 高腰阔腿牛仔裤',
    zh: '阔腿牛仔裤',
    en: 'the wide-leg jeans',
    it: { zh: ['这条裤子', '阔腿牛仔裤'], en: ['these jeans', 'the wide-leg jeans'] },
    detail: {
      material: '98% cotton, 2% elastane, 12 oz denim',
      sizes: 'waist 25-32 (inches); true to size',
      colors: ['light wash', 'mid blue'],
      care: 'wash inside out in cold water',
      stock: 'all sizes in stock',
      shipping: 'ships within 48 h',
    },
    facts: [
      {
        fields: ['material'],
        q: { zh: ['{it}有弹力吗'], en: ['do {it} have any stretch?'] },
        a: { zh: '有一点弹力，98%棉加2%氨纶，久坐也不勒～', en: "A little: 98% cotton and 2% elastane, so they're comfy sitting down." },
      },
      {
        fields: ['colors'],
        q: { zh: ['{it}有几个颜色'], en: ['what washes do {it} come in?'] },
        a: { zh: '有浅蓝水洗和中蓝两个颜色～', en: 'Two washes: light wash and mid blue.' },
      },
    ],
    clarify: {
      fields: ['sizes'],
      q: { zh: '{it}选多大码合适？', en: 'what size should I pick in {it}?' },
      ask: { zh: '平时穿几码的裤子呀？', en: 'What waist size do you usually wear?' },
      ans: { zh: '平时穿27', en: 'usually a 27' },
      a: { zh: '这款尺码标准，平时穿27就拍27～', en: 'They run true to size, so go with your usual 27.' },
    },
  },
  {
    id: 'i-04',
    price: 329,
    title: 'Cashmere-blend cardigan 羊绒混纺开衫',
    zh: '羊绒开衫',
    en: 'the cashmere cardigan',
    it: { zh: ['这件开衫', '羊绒开衫'], en: ['this cardigan', 'the cashmere cardigan'] },
    detail: {
      material: '30% cashmere, 70% merino wool',
      sizes: 'one size, fits S-L',
      colors: ['camel', 'grey', 'ivory'],
      care: 'hand wash cold or dry clean; dry flat',
      stock: 'in stock',
      shipping: 'ships within 48 h',
    },
    facts: [
      {
        fields: ['material'],
        q: { zh: ['{it}羊绒含量多少？'], en: ['how much cashmere is in {it}?'] },
        a: { zh: '30%羊绒加70%美利奴羊毛，软糯又保暖～', en: '30% cashmere and 70% merino wool: soft and warm.' },
      },
      {
        fields: ['care'],
        q: { zh: ['{it}怎么洗？'], en: ['how do I wash {it}?'] },
        a: { zh: '建议冷水手洗或者干洗，平铺晾干，别挂着～', en: 'Hand wash cold or dry clean, and dry it flat.' },
      },
    ],
  },
  {
    id: 'i-05',
    price: 239,
    title: 'Hyaluronic acid serum 30ml 玻尿酸精华',
    zh: '玻尿酸精华',
    en: 'the hyaluronic serum',
    it: { zh: ['这个精华', '玻尿酸精华'], en: ['this serum', 'the hyaluronic serum'] },
    detail: {
      ingredients: 'hyaluronic acid (3 molecular weights), panthenol, ceramide NP; fragrance-free',
      suitable_for: 'all skin types including sensitive; patch test first',
      specs: '30 ml dropper bottle; 3 years unopened, use within 6 months of opening',
      stock: 'in stock',
      shipping: 'ships within 24 h from the Shanghai warehouse',
    },
    facts: [
      {
        fields: ['ingredients'],
        q: { zh: ['{it}有香精吗？'], en: ['does {it} have fragrance?'] },
        a: { zh: '无香精，主要是三重玻尿酸，加了泛醇和神经酰胺～', en: 'No fragrance: three kinds of hyaluronic acid plus panthenol and ceramide.' },
      },
      {
        fields: ['specs'],
        q: { zh: ['{it}开封后能放多久'], en: ['how long does {it} last once opened?'] },
        a: { zh: '开封后建议6个月内用完，未开封保质期3年～', en: 'Use it within 6 months of opening; unopened it keeps 3 years.' },
      },
    ],
    clarify: {
      fields: ['suitable_for'],
      q: { zh: '{it}适合我吗？', en: 'would {it} suit my skin?' },
      ask: { zh: '你是什么肤质呀？干皮、油皮还是敏感肌？', en: "What's your skin type: dry, oily or sensitive?" },
      ans: { zh: '敏感肌', en: 'sensitive' },
      a: { zh: '敏感肌也能用，无香精，第一次建议先在耳后试一下～', en: "It's fragrance-free and fine for sensitive skin; patch test first." },
    },
  },
  {
    id: 'i-06',
    price: 129,
    title: 'Mineral sunscreen SPF50+ 物理防晒霜',
    zh: '物理防晒',
    en: 'the mineral sunscreen',
    it: { zh: ['这个防晒', '物理防晒霜'], en: ['this sunscreen', 'the mineral sunscreen'] },
    detail: {
      ingredients: 'zinc oxide 18%, titanium dioxide 4%; alcohol-free',
      suitable_for: 'sensitive and combination skin; may leave a slight white cast on deeper skin tones',
      specs: '50 ml, SPF50+ PA++++, water resistant for 40 minutes',
      stock: 'in stock',
      shipping: 'ships within 24 h',
    },
    facts: [
      {
        fields: ['specs'],
        q: { zh: ['{it}防水吗'], en: ['is {it} waterproof?'] },
        a: { zh: '防水40分钟，游泳或出汗多了记得补涂～', en: 'Water resistant for 40 minutes; reapply after swimming.' },
      },
      {
        fields: ['ingredients'],
        q: { zh: ['{it}是物理防晒还是化学的'], en: ['is {it} mineral or chemical?'] },
        a: { zh: '纯物理防晒，氧化锌加二氧化钛，不含酒精～', en: 'Pure mineral: zinc oxide and titanium dioxide, no alcohol.' },
      },
    ],
    clarify: {
      fields: ['suitable_for'],
      q: { zh: '{it}会不会泛白？', en: 'will {it} leave a white cast on me?' },
      ask: { zh: '你的肤色偏白还是偏深呀？', en: 'Is your skin tone fair, medium or deep?' },
      ans: { zh: '偏黄黑一点', en: 'medium-deep' },
      a: { zh: '偏深肤色可能有一点点泛白，薄涂、分次推开会好很多～', en: 'Deeper tones may see a slight cast; thin layers help a lot.' },
    },
  },
  {
    id: 'i-07',
    price: 69,
    title: 'Amino acid cleanser 氨基酸洗面奶',
    zh: '氨基酸洗面奶',
    en: 'the amino acid cleanser',
    it: { zh: ['这个洗面奶', '氨基酸洗面奶'], en: ['this cleanser', 'the amino acid cleanser'] },
    detail: {
      ingredients: 'amino-acid surfactants, glycerin; pH 5.5; no SLS',
      suitable_for: 'all skin types, gentle enough for twice-daily use',
      specs: '120 g tube, about 2 months with twice-daily use',
      stock: 'in stock',
      shipping: 'ships within 24 h',
    },
    facts: [
      {
        fields: ['ingredients'],
        q: { zh: ['{it}洗完会紧绷吗'], en: ['does {it} leave skin tight?'] },
        a: { zh: '氨基酸表活，pH5.5，不含皂基，洗完不紧绷～', en: "No: it's amino-acid based, pH 5.5 and SLS-free." },
      },
      {
        fields: ['specs'],
        q: { zh: ['{it}一支能用多久？'], en: ['how long does a tube of {it} last?'] },
        a: { zh: '一支120克，早晚都用大概两个月～', en: 'The 120 g tube lasts about two months used twice a day.' },
      },
    ],
  },
  {
    id: 'i-08',
    price: 259,
    title: 'Vitamin C brightening serum 30ml 维C亮肤精华',
    zh: '维C精华',
    en: 'the vitamin C serum',
    it: { zh: ['这个精华', '维C精华'], en: ['this serum', 'the vitamin C serum'] },
    detail: {
      ingredients: '10% ascorbyl glucoside, 4% niacinamide, vitamin E',
      suitable_for: 'normal, combination and oily skin; sensitive skin should start every other night',
      specs: '30 ml airless pump; use within 3 months of opening',
      stock: 'in stock',
      shipping: 'ships within 24 h',
    },
    facts: [
      {
        fields: ['ingredients'],
        q: { zh: ['{it}维C浓度多少'], en: ["what's the vitamin C concentration in {it}?"] },
        a: { zh: '10%维C衍生物加4%烟酰胺，是温和型配方～', en: '10% vitamin C derivative plus 4% niacinamide, a gentle formula.' },
      },
      {
        fields: ['suitable_for'],
        q: { zh: ['敏感肌能用{it}吗'], en: ['can sensitive skin use {it}?'] },
        a: { zh: '敏感肌建议先隔天晚上用，慢慢建立耐受哦～', en: "If you're sensitive, start every other night to build tolerance." },
      },
    ],
  },
];
