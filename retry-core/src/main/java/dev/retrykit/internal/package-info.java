/**
 * Implementation of the engine. Not API: anything here may change without notice.
 */
@NullMarked
package dev.retrykit.internal;

import org.jspecify.annotations.NullMarked;
