'use strict';
/**
 * The harness's results as the tests read them: JSDoc types only, for the type check (the harness's
 * JSDoc refers to them as import('./types').MessagingRun and so on).
 *
 * @typedef {object} OutputItem An output item: its JSON is the node's output data, read freely by the assertions.
 * @property {Record<string, any>} json
 * @property {import('n8n-workflow').IBinaryKeyData} [binary]
 * @property {import('n8n-workflow').IPairedItemData} [pairedItem] the node pairs each output item with one input item
 *
 * @typedef {import('n8n-workflow').ExecutionError & Record<string, any>} RunError An error as n8n reports it;
 *   its subclasses carry different fields (httpCode, description, context…).
 *
 * @typedef {object} MessagingRun What one run of Feed -> Messaging handed on.
 * @property {OutputItem[]} items
 * @property {OutputItem[][]} outputs
 * @property {RunError} [error]
 * @property {import('n8n-workflow').NodeExecutionHint[]} hints
 *
 * @typedef {object} ParkedRun A run that may have been parked (waitTill) or cancelled (status).
 * @property {OutputItem[]} items
 * @property {OutputItem[][]} [outputs]
 * @property {RunError} [error]
 * @property {import('n8n-workflow').NodeExecutionHint[]} [hints]
 * @property {Date} [waitTill]
 * @property {import('n8n-workflow').ExecutionStatus} status
 */

module.exports = {};
