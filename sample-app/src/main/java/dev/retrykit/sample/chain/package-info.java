/**
 * The {@code chain} profile: the sample as one tier of a chain of services, each calling the next through a
 * retrykit-claimed {@code RestClient}, the last one (the leaf) failing or slow on demand.
 */
@NullMarked
package dev.retrykit.sample.chain;

import org.jspecify.annotations.NullMarked;
