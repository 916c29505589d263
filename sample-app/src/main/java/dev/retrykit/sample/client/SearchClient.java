package dev.retrykit.sample.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.retrykit.annotation.Retryable;
import dev.retrykit.sample.client.Model.SearchResults;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Searches the catalog, a read that is safe to send twice, so that it can hedge: {@link #search} (instance
 * {@code search}) sends a second copy of a call that has no answer after the hedging delay, and takes
 * whichever answer comes first. {@link #searchUnhedged} (instance {@code search-unhedged}) sends the same
 * request without hedging, for comparison. The downstream's search has stragglers: one call in
 * {@code sample.downstream.straggler-every} answers late.
 *
 * <p>Each copy runs on a thread of its own pool: a copy that lost goes on until the downstream answers it
 * (cancelling its future does not abort the HTTP request), and must not hold up the calls that follow.
 */
@Component
public class SearchClient implements DisposableBean {

	private final Downstream downstream;

	private final ExecutorService io = Executors.newCachedThreadPool();

	SearchClient(Downstream downstream) {
		this.downstream = downstream;
	}

	/**
	 * @param query what to look for
	 * @return the products found, from the first copy that answered
	 */
	@Retryable("search")
	public CompletableFuture<SearchResults> search(String query) {
		return fetch(query);
	}

	/**
	 * @param query what to look for
	 * @return the products found
	 */
	@Retryable("search-unhedged")
	public CompletableFuture<SearchResults> searchUnhedged(String query) {
		return fetch(query);
	}

	private CompletableFuture<SearchResults> fetch(String query) {
		return CompletableFuture.supplyAsync(() -> this.downstream.client().get().uri("/search/{query}", query)
			.retrieve().body(SearchResults.class), this.io);
	}

	@Override
	public void destroy() {
		this.io.shutdownNow();
	}

}
