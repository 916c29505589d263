/**
 * Conversions of {@code retry.*} values, such as the compound duration format
 * ({@code 1m30s}), applied to retry properties only.
 */
@NullMarked
package dev.retrykit.spring.boot.convert;

import org.jspecify.annotations.NullMarked;
