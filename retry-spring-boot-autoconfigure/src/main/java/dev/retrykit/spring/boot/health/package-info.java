/**
 * The {@code retries} health indicator: reports circuits that are not closed. Created by
 * {@code dev.retrykit.spring.boot.autoconfigure.health}.
 */
@NullMarked
package dev.retrykit.spring.boot.health;

import org.jspecify.annotations.NullMarked;
