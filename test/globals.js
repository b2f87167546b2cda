// Jest's globals for the tests' type check (test/tsconfig.json), typed from the @jest/globals jest ships.
// Declarations only: a script the type checker reads, never run (jest runs *.test.js).

/** @type {typeof import('@jest/globals').describe} */
var describe;
/** @type {typeof import('@jest/globals').test} */
var test;
/** @type {typeof import('@jest/globals').it} */
var it;
/** @type {typeof import('@jest/globals').expect} */
var expect;
/** @type {typeof import('@jest/globals').beforeAll} */
var beforeAll;
/** @type {typeof import('@jest/globals').beforeEach} */
var beforeEach;
/** @type {typeof import('@jest/globals').afterAll} */
var afterAll;
/** @type {typeof import('@jest/globals').afterEach} */
var afterEach;
/** @type {typeof import('@jest/globals').jest} */
var jest;
