package dev.retrykit.sample.chain;

import java.io.IOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.retrykit.Deadline;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;

/**
 * What one tier saw, for a test to read ({@code GET /chain/records}): the requests it received, and the start of
 * every attempt of its calls to the next tier, each with the deadline it ran under. Times are microseconds since
 * the epoch on the system clock, which the tiers on one machine share. As a {@link ClientHttpRequestInterceptor}
 * (or {@link #exchangeFilter()}) added after retrykit's, it runs once per attempt, as the attempt starts. Keeps
 * the most recent {@value #CAPACITY} of each; thread-safe.
 */
final class ChainRecords implements ClientHttpRequestInterceptor {

	/** The header that names the user request a call belongs to, passed on by every tier. */
	static final String REQUEST_HEADER = "X-Chain-Request";

	/** The number of an attempt after the first ({@code retry.http.attempt-header}'s default). */
	static final String ATTEMPT_HEADER = "X-Retry-Attempt";

	/** The time left that a call sends along ({@code retry.http.deadline-header}'s default). */
	static final String DEADLINE_HEADER = "X-Request-Timeout";

	static final int CAPACITY = 20_000;

	private final AtomicLong received = new AtomicLong();

	private final ArrayDeque<Received> requests = new ArrayDeque<>();

	private final ArrayDeque<Attempt> attempts = new ArrayDeque<>();

	/**
	 * Counts a request this tier received, under the deadline current on its thread.
	 * @param request the user request's id, or {@code null}
	 * @param attempt its attempt number, from the caller's attempt header (1 without it)
	 * @return the request, to be recorded by {@link #answered} once the tier answers it
	 */
	Received arrived(@Nullable String request, int attempt) {
		this.received.incrementAndGet();
		return new Received(request, attempt, nowMicros(), deadlineMicros(), -1);
	}

	/**
	 * Records a request once this tier answered it.
	 * @param request what {@link #arrived} returned
	 */
	void answered(Received request) {
		Received record = new Received(request.request(), request.attempt(), request.at(), request.deadline(),
				nowMicros());
		synchronized (this.requests) {
			if (this.requests.size() == CAPACITY) {
				this.requests.removeFirst();
			}
			this.requests.addLast(record);
		}
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		attempt(request.getHeaders());
		return execution.execute(request, body);
	}

	/** {@return the same records as a {@code WebClient} filter: added after retrykit's, it sees every attempt} */
	ExchangeFilterFunction exchangeFilter() {
		return (request, next) -> Mono.defer(() -> {
			attempt(request.headers());
			return next.exchange(request);
		});
	}

	/**
	 * Records an attempt as it starts, under the deadline current on its thread or, when none is (a reactive
	 * attempt after a backoff runs on a scheduler's thread), the one its deadline header sends along.
	 */
	private void attempt(HttpHeaders headers) {
		long now = nowMicros();
		long deadline = deadlineMicros();
		String sent = headers.getFirst(DEADLINE_HEADER);
		if (deadline < 0 && sent != null && !sent.isEmpty() && sent.length() < 12
				&& sent.chars().allMatch(Character::isDigit)) {
			deadline = now + Long.parseLong(sent) * 1000;
		}
		Attempt record = new Attempt(headers.getFirst(REQUEST_HEADER), attemptNumber(headers.getFirst(ATTEMPT_HEADER)),
				now, deadline);
		synchronized (this.attempts) {
			if (this.attempts.size() == CAPACITY) {
				this.attempts.removeFirst();
			}
			this.attempts.addLast(record);
		}
	}

	/** {@return what this tier saw: its requests and its attempts, oldest first} */
	Snapshot snapshot(String tier) {
		List<Received> requests;
		synchronized (this.requests) {
			requests = new ArrayList<>(this.requests);
		}
		List<Attempt> attempts;
		synchronized (this.attempts) {
			attempts = new ArrayList<>(this.attempts);
		}
		return new Snapshot(tier, this.received.get(), requests, attempts);
	}

	/** Forgets what was recorded: between the runs of a test. */
	void clear() {
		this.received.set(0);
		synchronized (this.requests) {
			this.requests.clear();
		}
		synchronized (this.attempts) {
			this.attempts.clear();
		}
	}

	static int attemptNumber(@Nullable String header) {
		if (header == null) {
			return 1;
		}
		try {
			return Integer.parseInt(header.trim());
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	private static long nowMicros() {
		return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
	}

	/** {@return the current deadline as microseconds since the epoch, or -1 under none} */
	private static long deadlineMicros() {
		Deadline deadline = Deadline.current();
		return (deadline != null) ? nowMicros() + deadline.remainingNanos() / 1000 : -1;
	}

	/**
	 * A request this tier received.
	 * @param request the user request it belongs to
	 * @param attempt the caller's attempt number
	 * @param at when it arrived
	 * @param deadline the deadline it runs under, -1 for none
	 * @param answered when the tier answered it, -1 until then
	 */
	record Received(@Nullable String request, int attempt, long at, long deadline, long answered) {
	}

	/**
	 * An attempt of this tier's call to the next.
	 * @param request the user request it belongs to
	 * @param attempt its number
	 * @param at when it started
	 * @param deadline the deadline it ran under, -1 for none
	 */
	record Attempt(@Nullable String request, int attempt, long at, long deadline) {
	}

	/**
	 * @param tier the tier's name
	 * @param received the requests received since start (or the last clear)
	 * @param requests the most recent requests answered
	 * @param attempts the most recent attempts
	 */
	record Snapshot(String tier, long received, List<Received> requests, List<Attempt> attempts) {
	}

}
