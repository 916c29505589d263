package dev.retrykit.spring.boot.http.client;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpRequestDecorator;
import org.springframework.web.reactive.function.BodyInserter;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.ClientRequest;

/**
 * The request body of one retried {@code WebClient} call, kept as it is sent so that every later attempt (and every
 * hedged copy) sends the very same bytes, without running the request's body inserter again: a body from a
 * {@code Flux} or any {@code Publisher} may be subscribed once only, and a multipart body gets a new boundary on each
 * run.
 *
 * <p>The first attempt whose body is written runs the inserter and keeps a copy of every byte it writes, up to
 * {@value #MAX_REPLAY} bytes, with the headers the inserter added (its {@code Content-Type}). An attempt that starts
 * later writes the kept copy; a hedged copy that starts while the first is still writing waits for it. A body longer
 * than {@value #MAX_REPLAY} bytes, or one that was not written whole (its attempt failed or was cancelled while
 * writing it, or the publisher failed), cannot be sent again: {@link #replayable()} says so and
 * {@link #notReplayedReason()} says why; a hedged copy that then has nothing to send waits for the copy that wrote
 * the body ({@link #afterWriter()}), which may still win. An attempt that failed before its body was written (a
 * refused connection) leaves the body untouched, so the next attempt runs the inserter. Thread-safe.
 */
final class ReplayableBody {

	/** The most bytes of a request body that are kept to be sent again: 256 KiB, Spring's default codec limit. */
	static final int MAX_REPLAY = 256 * 1024;

	private static final int UNTOUCHED = 0;

	private static final int WRITING = 1;

	private static final int KEPT = 2;

	private static final int LOST = 3;

	private final BodyInserter<?, ? super ClientHttpRequest> inserter;

	private final String call;

	private final String instance;

	private final AtomicInteger state = new AtomicInteger(UNTOUCHED);

	private final Sinks.One<Kept> kept = Sinks.one();

	private final Sinks.Empty<Void> writerEnded = Sinks.empty();

	private volatile @Nullable String lost;

	private ReplayableBody(BodyInserter<?, ? super ClientHttpRequest> inserter, String call, String instance) {
		this.inserter = inserter;
		this.call = call;
		this.instance = instance;
	}

	/**
	 * {@return the body of a call, to be kept as it is sent; {@code null} for a request without a body, which every
	 * attempt may send as it is}
	 * @param request the call's request
	 * @param instance the name of the instance that retries it
	 */
	static @Nullable ReplayableBody of(ClientRequest request, String instance) {
		if (request.body() == BodyInserters.empty()) {
			return null;
		}
		return new ReplayableBody(request.body(), request.method().name() + " " + request.url(), instance);
	}

	/** {@return the body as one attempt (or hedged copy) sends it} */
	Sending attempt() {
		return new Sending();
	}

	/**
	 * {@return completes once the attempt that writes the body (and keeps it) has ended; at once when it has, or when
	 * none started}
	 */
	Mono<Void> afterWriter() {
		return (this.state.get() == UNTOUCHED) ? Mono.empty() : this.writerEnded.asMono();
	}

	/** {@return whether a later attempt can send the body: not yet written, or kept whole} */
	boolean replayable() {
		int now = this.state.get();
		return now == UNTOUCHED || now == KEPT;
	}

	/** {@return whether the body was started and can no longer be sent whole again} */
	boolean lost() {
		return this.state.get() == LOST;
	}

	/** {@return why the body cannot be sent again} */
	String notReplayedReason() {
		String why = this.lost;
		return "the request body of " + this.call + " " + ((why != null) ? why : "was not written whole before the "
				+ "attempt failed, and a body from a publisher can be read once") + ", so retry '" + this.instance
				+ "' sent it once: it sends a body again only when it kept it whole, up to " + MAX_REPLAY + " bytes";
	}

	private Mono<Void> insert(Sending sending, ClientHttpRequest message, BodyInserter.Context context) {
		if (this.state.compareAndSet(UNTOUCHED, WRITING)) {
			sending.writes = true;
			return this.inserter.insert(new Keeping(message), context);
		}
		return this.kept.asMono().flatMap(copy -> copy.writeTo(message));
	}

	/** The body as one attempt sends it: the first to write runs the inserter and keeps what it writes. */
	final class Sending {

		private volatile boolean writes;

		private Sending() {
		}

		/** {@return the attempt's inserter: the request's own when it writes first, else the kept copy} */
		BodyInserter<?, ClientHttpRequest> inserter() {
			return (message, context) -> insert(this, message, context);
		}

		/** {@return whether this attempt writes the body (and keeps it for the others)} */
		boolean writes() {
			return this.writes;
		}

		/** The attempt ended (with a response, a failure, or cancelled): a body it did not write whole is lost. */
		void ended() {
			if (this.writes) {
				lose("was not written whole before its attempt ended, and a body from a publisher can be read once");
				ReplayableBody.this.writerEnded.tryEmitEmpty();
			}
		}

	}

	private void lose(String why) {
		if (this.state.compareAndSet(WRITING, LOST)) {
			this.lost = why;
			this.kept.tryEmitError(new IllegalStateException("not sent again: " + notReplayedReason()));
		}
	}

	private void keep(Kept copy) {
		if (this.state.compareAndSet(WRITING, KEPT)) {
			this.kept.tryEmitValue(copy);
		}
	}

	/** The body as the first attempt wrote it, with the headers its inserter added. */
	private record Kept(HttpHeaders headers, byte @Nullable [] bytes) {

		Mono<Void> writeTo(ClientHttpRequest message) {
			HttpHeaders target = message.getHeaders();
			for (Map.Entry<String, List<String>> header : this.headers.headerSet()) {
				if (!target.containsHeader(header.getKey())) {
					target.put(header.getKey(), header.getValue());
				}
			}
			byte[] body = this.bytes;
			if (body == null) {
				return message.setComplete();
			}
			return message.writeWith(Mono.fromSupplier(() -> message.bufferFactory().wrap(body)));
		}

	}

	/** The request of the attempt that writes the body first: it keeps a copy of what it writes. */
	private final class Keeping extends ClientHttpRequestDecorator {

		private final HttpHeaders before;

		private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

		private boolean tooLong;

		/** The headers the inserter added, read when it writes (before the request is committed). */
		private HttpHeaders added = HttpHeaders.EMPTY;

		Keeping(ClientHttpRequest delegate) {
			super(delegate);
			this.before = HttpHeaders.copyOf(delegate.getHeaders());
		}

		@Override
		public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
			this.added = added();
			return super.writeWith(kept(Flux.from(body)));
		}

		@Override
		public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
			this.added = added();
			return super.writeAndFlushWith(kept(Flux.from(body).map(chunk -> Flux.from(chunk).doOnNext(this::copy))));
		}

		@Override
		public Mono<Void> setComplete() {
			HttpHeaders headers = added();
			return super.setComplete().doOnSuccess(done -> keep(new Kept(headers, null)));
		}

		private <T> Flux<T> kept(Flux<T> body) {
			return body.doOnNext(item -> {
				if (item instanceof DataBuffer buffer) {
					copy(buffer);
				}
			})
				.doOnComplete(() -> {
					if (!this.tooLong) {
						keep(new Kept(this.added, this.copy.toByteArray()));
					}
				})
				.doOnError(ex -> lose("failed while it was written (" + ex + ")"))
				.doOnCancel(() -> lose("was not written whole (its attempt was cancelled), and a body from a publisher "
						+ "can be read once"));
		}

		/** Called one buffer at a time: the body's signals are serial. */
		private void copy(DataBuffer buffer) {
			if (this.tooLong) {
				return;
			}
			int length = buffer.readableByteCount();
			if (this.copy.size() + length > MAX_REPLAY) {
				this.tooLong = true;
				this.copy.reset();
				lose("is longer than " + MAX_REPLAY + " bytes, the most kept to send again");
				return;
			}
			byte[] bytes = new byte[length];
			buffer.toByteBuffer(buffer.readPosition(), ByteBuffer.wrap(bytes), 0, length);
			this.copy.writeBytes(bytes);
		}

		/** {@return the headers the inserter added to the request's own} */
		private HttpHeaders added() {
			HttpHeaders added = new HttpHeaders();
			for (Map.Entry<String, List<String>> header : getDelegate().getHeaders().headerSet()) {
				if (!this.before.containsHeader(header.getKey())) {
					added.put(header.getKey(), header.getValue());
				}
			}
			return added;
		}

	}

}
