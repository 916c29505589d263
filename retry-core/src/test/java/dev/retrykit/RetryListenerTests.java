package dev.retrykit;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.retrykit.context.RetryContext;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryListenerTests {

	private final List<String> calls = new CopyOnWriteArrayList<>();

	private final VirtualTime time = new VirtualTime();

	@Test
	void listenersAreCalledInOrderAndClosedInReverse() throws Exception {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
			.listener(new Recording("a")).listener(new Recording("b")).build();
		AtomicInteger attempts = new AtomicInteger();
		template.execute(context -> {
			if (attempts.incrementAndGet() == 1) {
				throw new IOException("x");
			}
			return "ok";
		});
		assertThat(this.calls).containsExactly("a.open", "b.open", "a.onError:x", "b.onError:x", "a.onRetry:100ms",
				"b.onRetry:100ms", "a.onSuccess:ok", "b.onSuccess:ok", "b.close:null", "a.close:null");
	}

	@Test
	void closeReceivesTheFailureTheCallEndsWith() throws Exception {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(1)
			.listener(new Recording("a")).build();
		IOException boom = new IOException("boom");
		assertThatThrownBy(() -> template.execute(context -> {
			throw boom;
		})).isSameAs(boom);
		assertThat(this.calls).containsExactly("a.open", "a.onError:boom", "a.close:boom");
	}

	@Test
	void openCanVetoTheCall() throws Exception {
		RetryTemplate template = RetryTemplate.builder().listener(new RetryListener() {
			@Override
			public boolean open(RetryContext context) {
				return false;
			}
		}).listener(new Recording("b")).build();
		AtomicInteger attempts = new AtomicInteger();
		assertThatThrownBy(() -> template.execute(context -> attempts.incrementAndGet()))
			.isInstanceOf(RetryVetoedException.class).hasMessageContaining("vetoed");
		assertThat(attempts).hasValue(0);
		assertThat(this.calls).containsExactly("b.close:Retry 'default' was vetoed by a listener before its first attempt");
	}

	@Test
	void aThrowingListenerNeverBreaksTheCall() throws Exception {
		RetryListener broken = new RetryListener() {
			@Override
			public boolean open(RetryContext context) {
				throw new IllegalStateException("open");
			}

			@Override
			public void onSuccess(RetryContext context, @Nullable Object result) {
				throw new IllegalStateException("onSuccess");
			}

			@Override
			public void close(RetryContext context, @Nullable Throwable failure) {
				throw new IllegalStateException("close");
			}
		};
		RetryTemplate template = RetryTemplate.builder().listener(broken).listener(new Recording("b")).build();
		String result = template.execute(context -> "ok");
		assertThat(result).isEqualTo("ok");
		assertThat(template.getMetrics().getListenerFailures()).isEqualTo(3);
		assertThat(this.calls).containsExactly("b.open", "b.onSuccess:ok", "b.close:null");
	}

	final class Recording implements RetryListener {

		private final String name;

		Recording(String name) {
			this.name = name;
		}

		@Override
		public boolean open(RetryContext context) {
			RetryListenerTests.this.calls.add(this.name + ".open");
			return true;
		}

		@Override
		public void onSuccess(RetryContext context, @Nullable Object result) {
			RetryListenerTests.this.calls.add(this.name + ".onSuccess:" + result);
		}

		@Override
		public void onError(RetryContext context, @Nullable Throwable failure) {
			RetryListenerTests.this.calls.add(this.name + ".onError:" + ((failure != null) ? failure.getMessage() : null));
		}

		@Override
		public void onRetry(RetryContext context, Duration delay) {
			RetryListenerTests.this.calls.add(this.name + ".onRetry:" + delay.toMillis() + "ms");
		}

		@Override
		public void close(RetryContext context, @Nullable Throwable failure) {
			RetryListenerTests.this.calls.add(this.name + ".close:" + ((failure != null) ? failure.getMessage() : null));
		}

	}

}
