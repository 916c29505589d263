package dev.retrykit.reactor;

import org.reactivestreams.Publisher;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

/**
 * A {@code Flux} retried by a {@link RetryOperator}: each subscription is one call of the template.
 * A subscription while the template hedges fails at once: a stream's copies cannot be raced.
 * Thread-safe.
 *
 * @param <T> the element type
 */
final class RetryFlux<T> extends Flux<T> {

	private final Publisher<T> source;

	private final RetryOperator<T> operator;

	private RetryFlux(Publisher<T> source, RetryOperator<T> operator) {
		this.source = source;
		this.operator = operator;
	}

	static <T> Flux<T> create(Publisher<T> source, RetryOperator<T> operator) {
		return onAssembly(new RetryFlux<>(source, operator));
	}

	@Override
	public void subscribe(CoreSubscriber<? super T> actual) {
		if (this.operator.template().getConfig().isHedging()) {
			// Hedging was switched on by a live change since assembly.
			Operators.error(actual, new IllegalStateException(this.operator.fluxRefused()));
			return;
		}
		if (this.operator.isAllOrNothing()) {
			BufferedFluxCall.start(actual, this.source, this.operator);
		}
		else {
			StreamingFluxCall.start(actual, this.source, this.operator);
		}
	}

}
