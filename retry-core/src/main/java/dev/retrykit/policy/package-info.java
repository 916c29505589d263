/**
 * Retry policies: attempt limits, custom stop conditions, optimistic and pessimistic composites,
 * per-exception-type policies and status-code lists.
 */
@NullMarked
package dev.retrykit.policy;

import org.jspecify.annotations.NullMarked;
