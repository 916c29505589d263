package dev.retrykit.spring.boot.http.client;

import java.util.ArrayList;
import java.util.List;

import dev.retrykit.hedging.HedgingConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.http.client.ClientHttpResponse;

/**
 * The accepted responses the copies of one hedged blocking call got. The engine ends the call with one of them and
 * ignores the others; each of those holds a pooled connection, so it is closed here: at the call's end for a copy
 * that got its response before, at once for a copy that gets it after (the loser, still on the wire when the winner
 * answered). Thread-safe: the copies run on the hedging executor's threads, the end on the caller's.
 */
final class HedgedResponses {

	private final List<ClientHttpResponse> open = new ArrayList<>(2);

	private boolean ended;

	private HedgedResponses() {
	}

	/** {@return the responses of a call of this route, or {@code null} when its instance does not hedge now} */
	static @Nullable HedgedResponses forCall(HttpRetryRoute route) {
		HedgingConfig hedging = route.template().getConfig().getHedging();
		return (hedging != null && hedging.isEnabled()) ? new HedgedResponses() : null;
	}

	/**
	 * Keeps a copy's accepted response, to be closed unless the call ends with it; closes it at once when the call
	 * has already ended (the engine ignores it).
	 * @param response the response
	 * @return {@code response}
	 */
	ClientHttpResponse offer(ClientHttpResponse response) {
		synchronized (this) {
			if (!this.ended) {
				this.open.add(response);
				return response;
			}
		}
		close(response);
		return response;
	}

	/**
	 * Ends the call: closes every kept response but the one the call ended with.
	 * @param outcome the response the call ended with, or {@code null} when it failed
	 */
	void end(@Nullable ClientHttpResponse outcome) {
		List<ClientHttpResponse> losers;
		synchronized (this) {
			this.ended = true;
			losers = List.copyOf(this.open);
			this.open.clear();
		}
		for (ClientHttpResponse response : losers) {
			if (response != outcome) {
				close(response);
			}
		}
	}

	private static void close(ClientHttpResponse response) {
		try {
			response.close();
		}
		catch (RuntimeException ex) {
			// Closing a response nobody reads: its connection is discarded either way, nothing to report to the caller.
		}
	}

}
