import { useBuiltinTransforms } from '../../src/transform/builtins.js';

// A setup file (vitest.config.ts): every test file's registry has the built-in transforms, handed in
// as the CLI hands them in, so tests that run the engine in process (runAugment, StateRebuilder,
// loadRegistry) need nothing of their own.
useBuiltinTransforms(new URL('../../transforms/index.js', import.meta.url).href);
