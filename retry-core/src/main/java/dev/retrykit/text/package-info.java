/**
 * How retrykit writes values for people: the duration form of its configurations, messages and
 * events, which the Spring module also reads back. A leaf package (it depends on the JDK only), so
 * that every other package may use it without forming a cycle.
 */
@NullMarked
package dev.retrykit.text;

import org.jspecify.annotations.NullMarked;
