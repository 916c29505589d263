/**
 * Extension points of the engine: time, sleeping and scheduling, backoff, status extraction, delay
 * hints and the stateful-retry context cache. Types here depend on the JDK and the public API only,
 * never on {@code dev.retrykit.internal}.
 */
@NullMarked
package dev.retrykit.spi;

import org.jspecify.annotations.NullMarked;
