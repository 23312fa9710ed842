// The tables of the BFCL-live-shaped generator (scripts/bench/bfcl-live.mjs): system messages, tool
// families with their parameters, service and namespace prefixes, and user-turn templates. Our own
// text, shaped after the leaderboard's live sets (see the generator's header).

export const SYSTEMS = [
  "Don't make assumptions about what values to plug into functions. Ask for clarification if a user request is ambiguous.",
  'You are an agent that is used for ordering food on your customers behalf using your functions',
  'You are a helpful assistant with access to functions. Use them when needed; otherwise answer directly.',
  'You are an AI programming assistant. Answer questions about the workspace and call the tools you were given.',
  '你是一个乐于助人的助手，可以调用以下函数来完成用户的请求。',
];

// Families of tools: [domain stem, [verb, object, description, params]]; params: [name, kind, extra].
// kinds: s (string), e (string enum), i (integer), n (number), b (boolean), a (array of strings), o (nested object).
export const FAMILIES = [
  [
    'food',
    [
      [
        'change',
        'drink',
        "Modifies the existing drink order to accommodate the customer's new request, ensuring the drink is updated according to the specified preferences.",
        [
          ['drink_id', 's'],
          [
            'new_preferences',
            'o',
            [
              ['size', 'e', ['small', 'medium', 'large']],
              ['temperature', 'e', ['cold', 'warm', 'hot']],
              ['sweetness_level', 'e', ['none', 'light', 'regular', 'extra']],
              ['milk_type', 'e', ['regular', 'soy', 'almond', 'coconut']],
              ['special_instructions', 's'],
            ],
          ],
        ],
      ],
      [
        'change',
        'food',
        "Changes the food item based on the customer's request, allowing for modifications to the ingredients or preparation method.",
        [
          ['foodItem', 's'],
          ['newIngredients', 's'],
          ['removeIngredients', 's'],
          ['specialInstructions', 's'],
        ],
      ],
      [
        'order',
        'meal',
        'Places an order for one or more dishes from a restaurant, delivered to the given address.',
        [
          ['restaurant', 's'],
          ['items', 'a'],
          ['quantities', 'a'],
          ['address', 's'],
          ['tip_percent', 'i'],
        ],
      ],
    ],
  ],
  [
    'ride',
    [
      [
        'request',
        'ride',
        'Finds a suitable Uber ride for the customer based on the starting location, the desired ride type, and the maximum wait time the customer is willing to accept.',
        [
          ['loc', 's'],
          ['type', 'e', ['plus', 'comfort', 'black']],
          ['time', 'i'],
        ],
      ],
      [
        'estimate',
        'fare',
        'Estimates the fare of a trip between two addresses for the given vehicle class.',
        [
          ['pickup', 's'],
          ['dropoff', 's'],
          ['vehicle_class', 'e', ['economy', 'premium', 'xl']],
        ],
      ],
    ],
  ],
  [
    'weather',
    [
      [
        'get',
        'current_weather',
        "Retrieves the current weather conditions for a specified location, such as 'City, State' or 'City, Country'.",
        [
          ['location', 's'],
          ['unit', 'e', ['metric', 'imperial']],
        ],
      ],
      [
        'get',
        'forecast',
        'Gets the weather forecast for the next days at a location, in the unit system asked for.',
        [
          ['location', 's'],
          ['days', 'i'],
          ['unit', 'e', ['celsius', 'fahrenheit']],
          ['include_hourly', 'b'],
        ],
      ],
    ],
  ],
  [
    'workspace',
    [
      [
        'create',
        'workspace',
        'Creates a new workspace in the mbox system, based on a specified branch of the aweme git repository.',
        [
          ['name', 's'],
          ['base_branch', 's'],
        ],
      ],
      [
        'start',
        'oncall',
        "Initiate an on-call support session when a user explicitly requests assistance. The user's question, which should be clear and devoid of irrelevant details, can be referenced from the preceding chat interaction.",
        [
          ['question', 's'],
          ['oncall_type', 'e', ['swift', 'mbox']],
        ],
      ],
      [
        'generate',
        'password',
        'Generate a secure, random password based on specified criteria including length, numerical, and special character inclusion.',
        [
          ['length', 'i'],
          ['include_numbers', 'b'],
          ['include_special_characters', 'b'],
        ],
      ],
    ],
  ],
  [
    'hotels',
    [
      [
        'search',
        'hotel',
        'Search for accommodations in a specific city, filtering results based on star rating, smoking policy, and the number of rooms required.',
        [
          ['location', 's'],
          ['star_rating', 'e', ['1', '2', '3', '4', '5', 'dontcare']],
          ['smoking_allowed', 'b'],
          ['number_of_rooms', 'i'],
        ],
      ],
      [
        'reserve',
        'hotel',
        'Reserve a room at a hotel for the given dates and number of guests.',
        [
          ['place_name', 's'],
          ['check_in_date', 's'],
          ['stay_length', 'i'],
          [
            'guests',
            'o',
            [
              ['adults', 'i'],
              ['children', 'i'],
            ],
          ],
        ],
      ],
    ],
  ],
  [
    'events',
    [
      [
        'find',
        'events',
        'Find cultural events, such as concerts and plays, happening in a specified city on a given date.',
        [
          ['event_type', 'e', ['Music', 'Theater']],
          ['city', 's'],
          ['date', 's'],
        ],
      ],
      [
        'buy',
        'tickets',
        'Purchase tickets for a specified cultural event on a particular date in a selected city.',
        [
          ['event_name', 's'],
          ['number_of_tickets', 'i'],
          ['date', 's'],
          ['city', 's'],
        ],
      ],
    ],
  ],
  [
    'finance',
    [
      [
        'get',
        'stock_price',
        'Fetches the latest trading price and daily change for a ticker symbol on the chosen exchange.',
        [
          ['ticker', 's'],
          ['exchange', 'e', ['NASDAQ', 'NYSE', 'HKEX', 'LSE']],
        ],
      ],
      [
        'transfer',
        'funds',
        'Transfers an amount between two accounts of the same customer and returns the transaction reference.',
        [
          ['from_account', 's'],
          ['to_account', 's'],
          ['amount', 'n'],
          ['currency', 'e', ['USD', 'EUR', 'CNY', 'VND']],
          ['memo', 's'],
        ],
      ],
    ],
  ],
  [
    'home',
    [
      [
        'control',
        'appliance',
        'This tool is designed for controlling a home appliance, checking its current status and settings, and turning it on or off.',
        [
          ['command', 's'],
          ['room', 'e', ['living room', 'kitchen', 'bedroom', 'bathroom']],
          ['level', 'i'],
        ],
      ],
      [
        'set',
        'thermostat',
        'Sets the target temperature and mode of a smart thermostat.',
        [
          ['device_id', 's'],
          ['target_temperature', 'n'],
          ['mode', 'e', ['heat', 'cool', 'auto', 'off']],
          [
            'schedule',
            'o',
            [
              ['start', 's'],
              ['end', 's'],
              ['repeat_days', 'a'],
            ],
          ],
        ],
      ],
    ],
  ],
  [
    'media',
    [
      [
        'play',
        'song',
        'Plays the specified song on the selected device, optionally shuffling the rest of the album.',
        [
          ['query', 's'],
          ['device', 'e', ['Living room', 'Kitchen', 'Patio']],
          ['shuffle', 'b'],
          ['volume', 'i'],
        ],
      ],
      [
        'find',
        'movies',
        'Search for movies playing in a city, optionally filtered by genre and show type.',
        [
          ['location', 's'],
          ['genre', 'e', ['Drama', 'Comedy', 'Action', 'Animation', 'dontcare']],
          ['show_type', 'e', ['regular', '3d', 'imax']],
        ],
      ],
    ],
  ],
  [
    'calendar',
    [
      [
        'schedule',
        'meeting',
        'Schedules a meeting with the given participants at a date and time, in a time zone.',
        [
          ['title', 's'],
          ['participants', 'a'],
          ['start_time', 's'],
          ['duration_minutes', 'i'],
          ['timezone', 's'],
        ],
      ],
      [
        'list',
        'events',
        'Lists the calendar events between two dates for the current user.',
        [
          ['start_date', 's'],
          ['end_date', 's'],
          ['include_declined', 'b'],
        ],
      ],
    ],
  ],
];
export const SERVICES = ['Hotels', 'Events', 'Movies', 'Music', 'Flights', 'RideSharing', 'Weather', 'Banks', 'Homes', 'Restaurants'];
export const NAMESPACES = ['api', 'uber', 'cmd_controller', 'requests', 'ChaDri', 'mbox', 'finance', 'home_assistant'];
export const USERS_EN = [
  'could you {v} the {o} for me? The {p} is {x}.',
  'please {v} my {o} with {p} set to {x}.',
  'I need to {v} a {o}; use {x} as the {p}.',
  '{v} {o} now — {p}: {x}',
];
export const USERS_OTHER = ['Tôi cần {v} {o}, {p} là {x}.', '请帮我{v}一下{o}，{p}是{x}。', 'Bitte {o} {v}: {p} = {x}.'];
