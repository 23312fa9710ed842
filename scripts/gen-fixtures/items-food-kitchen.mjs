// Catalogue items, part 2: snacks, tea and kitchen (i-09 … i-16).

export const FOOD_KITCHEN_ITEMS = [
  {
    id: 'i-09',
    plural: true,
    price: 119,
    title: 'Daily mixed nuts 30 packs 每日坚果30袋',
    zh: '每日坚果',
    en: 'the daily mixed nuts',
    it: { zh: ['这个坚果', '每日坚果'], en: ['these nuts', 'the daily mixed nuts'] },
    detail: {
      ingredients: 'walnuts, cashews, almonds, hazelnuts, dried cranberries, dried blueberries; contains tree nuts',
      specs: '25 g x 30 packs; shelf life 180 days',
      stock: 'in stock',
      shipping: 'ships within 24 h in a sealed box',
    },
    facts: [
      {
        fields: ['ingredients'],
        q: { zh: ['{it}里面都有什么'], en: ["what's in {it}?"] },
        a: { zh: '有核桃、腰果、巴旦木、榛子，还有蔓越莓和蓝莓干～', en: 'Walnuts, cashews, almonds, hazelnuts, plus dried cranberries and blueberries.' },
      },
      {
        fields: ['specs'],
        q: { zh: ['{it}保质期多久'], en: ["what's the shelf life of {it}?"] },
        a: { zh: '一袋25克，一共30袋，保质期180天～', en: '30 packs of 25 g, with a 180-day shelf life.' },
      },
    ],
  },
  {
    id: 'i-10',
    price: 59,
    title: 'Spicy beef jerky 200g 麻辣牛肉干',
    zh: '麻辣牛肉干',
    en: 'the spicy beef jerky',
    it: { zh: ['这个牛肉干', '麻辣牛肉干'], en: ['this jerky', 'the spicy beef jerky'] },
    detail: {
      ingredients: 'beef (at least 85%), chili, Sichuan pepper, sugar, salt',
      specs: '200 g, individually wrapped; shelf life 9 months',
      suitable_for: 'very spicy; not for young children',
      stock: 'in stock',
      shipping: 'ships within 24 h',
    },
    facts: [
      {
        fields: ['suitable_for'],
        q: { zh: ['{it}辣不辣？'], en: ['how spicy is {it}?'] },
        a: { zh: '是真的辣，麻辣味很足，小朋友就先别吃啦～', en: 'Really spicy with Sichuan pepper; not one for little kids.' },
      },
      {
        fields: ['ingredients'],
        q: { zh: ['{it}是纯牛肉吗'], en: ['is {it} real beef?'] },
        a: { zh: '牛肉含量85%以上，用辣椒和花椒调味～', en: 'Yes, at least 85% beef, seasoned with chili and Sichuan pepper.' },
      },
    ],
  },
  {
    id: 'i-11',
    plural: true,
    price: 45,
    title: 'Freeze-dried strawberries 50g 冻干草莓',
    zh: '冻干草莓',
    en: 'the freeze-dried strawberries',
    it: { zh: ['这个草莓干', '冻干草莓'], en: ['these strawberries', 'the freeze-dried strawberries'] },
    detail: {
      ingredients: '100% strawberries, no added sugar',
      specs: '50 g resealable pouch; shelf life 12 months',
      suitable_for: 'kids from 3 years',
      stock: 'in stock',
      shipping: 'ships within 24 h',
    },
    facts: [
      {
        fields: ['ingredients'],
        q: { zh: ['{it}加糖了吗'], en: ['do {it} have added sugar?'] },
        a: { zh: '没有加糖，配料表只有草莓～', en: 'No added sugar: the only ingredient is strawberries.' },
      },
      {
        fields: ['suitable_for'],
        q: { zh: ['小孩能吃{it}吗'], en: ['can kids eat {it}?'] },
        a: { zh: '3岁以上的小朋友可以吃，酥酥脆脆的～', en: 'Yes, they are fine for kids aged 3 and up.' },
      },
    ],
  },
  {
    id: 'i-12',
    price: 268,
    title: 'Oolong tea gift box 乌龙茶礼盒',
    zh: '乌龙茶礼盒',
    en: 'the oolong gift box',
    it: { zh: ['这个礼盒', '乌龙茶礼盒'], en: ['this gift box', 'the oolong gift box'] },
    detail: {
      ingredients: 'oolong tea leaves (Anxi Tieguanyin)',
      specs: '250 g: 50 bags x 5 g, gift box with carrier bag',
      stock: 'in stock',
      shipping: 'ships within 48 h; a gift card message can be added in the order note',
    },
    facts: [
      {
        fields: ['specs'],
        q: { zh: ['{it}有多少克？'], en: ['how much tea is in {it}?'] },
        a: { zh: '安溪铁观音一共250克，5克一泡，共50泡～', en: '250 g of Anxi Tieguanyin: 50 bags of 5 g.' },
      },
      {
        fields: ['shipping'],
        q: { zh: ['{it}能写贺卡吗'], en: ['can I add a gift card to {it}?'] },
        a: { zh: '可以，下单时备注祝福语，48小时内发货～', en: 'Yes, put your message in the order note; it ships within 48 h.' },
      },
    ],
  },
  {
    id: 'i-13',
    price: 189,
    title: 'Cast-iron skillet 26cm 铸铁煎锅',
    zh: '铸铁煎锅',
    en: 'the cast-iron skillet',
    it: { zh: ['这口锅', '铸铁煎锅'], en: ['this pan', 'the cast-iron skillet'] },
    detail: {
      material: 'pre-seasoned cast iron',
      specs: '26 cm, 2.3 kg; works on gas, induction and in the oven',
      care: 'hand wash, dry on heat, oil lightly',
      warranty: '10-year warranty',
      stock: 'in stock',
    },
    facts: [
      {
        fields: ['specs'],
        q: { zh: ['{it}重不重？'], en: ['how heavy is {it}?'] },
        a: { zh: '26厘米，2.3公斤，有点分量，但受热很稳～', en: "It's 26 cm and 2.3 kg: a bit heavy, but it heats evenly." },
      },
      {
        fields: ['care'],
        q: { zh: ['{it}会生锈吗'], en: ['does {it} rust?'] },
        a: { zh: '已经预开锅了，洗完上火烘干、抹点油就不容易锈～', en: 'It comes pre-seasoned; dry it on heat and oil lightly to prevent rust.' },
      },
    ],
    clarify: {
      fields: ['specs'],
      q: { zh: '{it}我家灶能用吗？', en: 'will {it} work on my stove?' },
      ask: { zh: '你家是燃气灶、电磁炉还是电陶炉呀？', en: 'What kind of stove do you have: gas, induction or ceramic?' },
      ans: { zh: '电磁炉', en: 'induction' },
      a: { zh: '可以的，燃气灶、电磁炉、烤箱都能用～', en: 'Yes, it works on induction, on gas and in the oven.' },
    },
  },
  {
    id: 'i-14',
    price: 229,
    title: 'Non-stick wok 32cm 不粘炒锅',
    zh: '不粘炒锅',
    en: 'the non-stick wok',
    it: { zh: ['这口锅', '不粘炒锅'], en: ['this wok', 'the non-stick wok'] },
    detail: {
      material: 'aluminium body, 3-layer ceramic non-stick coating, PFOA-free',
      specs: '32 cm, 1.6 kg, glass lid; gas and induction',
      care: 'no metal utensils; hand wash',
      warranty: '2-year coating warranty',
      stock: 'in stock',
    },
    facts: [
      {
        fields: ['material'],
        q: { zh: ['{it}是什么涂层？'], en: ['what coating does {it} have?'] },
        a: { zh: '三层陶瓷不粘涂层，不含PFOA～', en: "It's a 3-layer ceramic non-stick coating, PFOA-free." },
      },
      {
        fields: ['warranty'],
        q: { zh: ['{it}涂层掉了怎么办'], en: ['what if the coating on {it} wears off?'] },
        a: { zh: '涂层有2年质保，期间有问题可以找售后～', en: 'The coating has a 2-year warranty; after-sales will help if it fails.' },
      },
    ],
    clarify: {
      fields: ['specs'],
      q: { zh: '{it}我家能用吗？', en: 'can I use {it} at home?' },
      ask: { zh: '你家是燃气灶还是电磁炉呀？', en: 'Do you cook on gas or induction?' },
      ans: { zh: '电磁炉', en: 'induction' },
      a: { zh: '电磁炉可以用，燃气灶也行，还带玻璃盖～', en: 'Yes, it works on induction and gas, and comes with a glass lid.' },
    },
  },
  {
    id: 'i-15',
    price: 99,
    title: 'Electric kettle 1.7L 电热水壶',
    zh: '电热水壶',
    en: 'the electric kettle',
    it: { zh: ['这个水壶', '电热水壶'], en: ['this kettle', 'the electric kettle'] },
    detail: {
      material: '304 stainless steel interior, double wall',
      specs: '1.7 L, 1800 W, boils 1 L in about 4 minutes, auto shut-off, boil-dry protection',
      warranty: '1-year warranty',
      stock: 'in stock',
    },
    facts: [
      {
        fields: ['material'],
        q: { zh: ['{it}内胆是什么材质'], en: ['is the inside of {it} plastic?'] },
        a: { zh: '内胆是304不锈钢，双层防烫～', en: 'No, the inside is 304 stainless steel, with a double wall.' },
      },
      {
        fields: ['specs'],
        q: { zh: ['{it}烧水快吗'], en: ['how fast does {it} boil?'] },
        a: { zh: '1800瓦，一升水大概4分钟，烧开自动断电～', en: '1800 W: about 4 minutes per litre, with auto shut-off.' },
      },
    ],
  },
  {
    id: 'i-16',
    price: 259,
    title: 'Knife set 5-piece 刀具五件套',
    zh: '刀具五件套',
    en: 'the knife set',
    it: { zh: ['这套刀', '刀具五件套'], en: ['this set', 'the knife set'] },
    detail: {
      material: 'German 1.4116 stainless steel, pakkawood handles',
      specs: 'chef knife 20 cm, slicer, santoku, utility knife, paring knife, wooden block',
      care: 'hand wash and dry; not dishwasher safe',
      warranty: '3-year warranty',
      stock: 'in stock',
    },
    facts: [
      {
        fields: ['specs'],
        q: { zh: ['{it}都有哪几把'], en: ['which knives are in {it}?'] },
        a: { zh: '主厨刀、切片刀、三德刀、多用刀和水果刀，带刀座～', en: 'Chef, slicer, santoku, utility and paring knives, plus a block.' },
      },
      {
        fields: ['care'],
        q: { zh: ['{it}能进洗碗机吗'], en: ['is {it} dishwasher safe?'] },
        a: { zh: '不建议进洗碗机，手洗擦干更耐用～', en: 'Not dishwasher safe; hand wash and dry them.' },
      },
    ],
  },
];
