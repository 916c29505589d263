/**
 * The sample's own HTTP API.
 */
@NullMarked
package dev.retrykit.sample.shop;

import org.jspecify.annotations.NullMarked;
