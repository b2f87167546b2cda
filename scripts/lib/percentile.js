'use strict';

/** The p-th percentile of `sorted` (ascending, nearest rank); NaN when it is empty. */
function percentile(sorted, p) {
	if (sorted.length === 0) return NaN;
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

module.exports = { percentile };
