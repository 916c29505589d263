/**
 * The retry cluster at run time in a Spring application: started once the context is refreshed,
 * stopped and its engine closed before the connections it uses.
 */
@NullMarked
package dev.retrykit.spring.boot.cluster;

import org.jspecify.annotations.NullMarked;
