/**
 * OpenRewrite recipes that move a codebase from Spring Retry or Resilience4j to retrykit, and across retrykit's own
 * renames.
 *
 * <p>The entry points are the declarative recipes {@code dev.retrykit.migrate.SpringRetryToRetrykit},
 * {@code dev.retrykit.migrate.Resilience4jToRetrykit} and {@code dev.retrykit.migrate.RetrykitApiChanges}
 * ({@code META-INF/rewrite/retrykit.yml}). Whatever has no
 * faithful mapping is left unchanged, marked with a comment starting {@value MigrationNotes#MARKER} and listed in
 * the {@link UnmappedElements} data table.
 */
@NullMarked
package dev.retrykit.migrate;

import org.jspecify.annotations.NullMarked;
