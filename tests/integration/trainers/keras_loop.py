"""A small Keras 3 fit (the torch backend, CPU) logging through SignalboxCallback; prints its
history."""
import json
import math

import keras
import numpy as np

from signalbox.integrations.keras import SignalboxCallback

keras.utils.set_random_seed(0)
x = np.random.rand(256, 4).astype("float32")
y = x.sum(axis=1, keepdims=True)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="mse")
history = model.fit(x, y, epochs=3, batch_size=32, validation_split=0.25, verbose=0,
                    callbacks=[SignalboxCallback(run="keras-run", log_every_n_batches=1)])
print(json.dumps({"history": {k: [float(v) for v in vs] for k, vs in history.history.items()},
                  "batches": math.ceil(192 / 32)}))
