package dev.retrykit.sample.client;

import dev.retrykit.sample.client.Model.Recommendations;

import org.springframework.stereotype.Component;

/**
 * A client the application does not annotate (think of a generated one): {@code retry.targets} in
 * {@code application.yml} applies the {@code recommendations} instance to it by pointcut.
 */
@Component
public class RecommendationsApi {

	private final Downstream downstream;

	RecommendationsApi(Downstream downstream) {
		this.downstream = downstream;
	}

	/**
	 * @param sku the product
	 * @return products bought with it
	 */
	public Recommendations forSku(String sku) {
		return Downstream.body(this.downstream.client().get().uri("/recommendations/{sku}", sku).retrieve(),
				Recommendations.class);
	}

}
