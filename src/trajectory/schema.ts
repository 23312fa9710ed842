import { z } from 'zod';

const textContent = z.union([
  z.string(),
  z.array(z.strictObject({ type: z.literal('text'), text: z.string() })),
]);

const toolCall = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().min(1), arguments: z.string() }),
});

export const messageSchema = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('system'), content: textContent, name: z.string().optional() }),
  z.strictObject({ role: z.literal('developer'), content: textContent, name: z.string().optional() }),
  z.strictObject({ role: z.literal('user'), content: textContent, name: z.string().optional() }),
  z.strictObject({
    role: z.literal('assistant'),
    content: textContent.nullable(),
    name: z.string().optional(),
    tool_calls: z.array(toolCall).optional(),
    reasoning_content: z.string().optional(),
    refusal: z.string().nullable().optional(),
  }),
  z.strictObject({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: textContent }),
]);

const openAiTool = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

export const trajectorySchema = z.strictObject({
  id: z.string().min(1),
  harness: z.strictObject({ name: z.string(), version: z.union([z.string(), z.number()]) }).optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  messages: z.array(messageSchema).min(1),
  tools: z.array(openAiTool).optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
});
