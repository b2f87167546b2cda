'use strict';
// `npm run test:e2e`: the end-to-end checks and their workflows live together in test/e2e/.
require('../test/e2e/e2e.js');
