package dev.retrykit.reactor;

import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

/**
 * A {@code Mono} retried by a {@link RetryOperator}: each subscription is one call of the template.
 * Thread-safe.
 *
 * @param <T> the value type
 */
final class RetryMono<T> extends Mono<T> {

	private final Mono<T> source;

	private final RetryOperator<T> operator;

	private RetryMono(Mono<T> source, RetryOperator<T> operator) {
		this.source = source;
		this.operator = operator;
	}

	static <T> Mono<T> create(Mono<T> source, RetryOperator<T> operator) {
		return onAssembly(new RetryMono<>(source, operator));
	}

	@Override
	public void subscribe(CoreSubscriber<? super T> actual) {
		MonoCall.start(actual, this.source, this.operator);
	}

}
