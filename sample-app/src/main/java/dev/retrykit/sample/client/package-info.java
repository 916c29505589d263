/**
 * The sample's clients of the flaky downstream, one per retrykit feature.
 */
@NullMarked
package dev.retrykit.sample.client;

import org.jspecify.annotations.NullMarked;
