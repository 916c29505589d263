package dev.retrykit.reactor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.core.CoreSubscriber;

/**
 * An attempt of a {@code Flux} in all-or-nothing mode: buffers its elements and completes with them as
 * an unmodifiable {@code List}; nothing of it reaches downstream unless the call succeeds with it.
 * Thread-safe.
 *
 * @param <T> the element type
 */
final class BufferedAttempt<T> extends CollectingAttempt<T> {

	/** Written only by the signalling thread (signals are serial), published by completing this future. */
	private @Nullable List<T> elements;

	BufferedAttempt(CoreSubscriber<? super T> downstream) {
		super(downstream);
	}

	@Override
	public void onNext(T t) {
		if (isDone()) {
			lateElement(t);
			return;
		}
		List<T> buffer = this.elements;
		if (buffer == null) {
			buffer = new ArrayList<>();
			this.elements = buffer;
		}
		buffer.add(t);
	}

	@Override
	public void onComplete() {
		List<T> buffer = this.elements;
		complete((buffer != null) ? Collections.unmodifiableList(buffer) : List.of());
	}

}
