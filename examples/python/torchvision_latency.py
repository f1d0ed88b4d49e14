# From a torchvision model to a latency and an error against PyTorch, on Kiln's
# fast CPU backend (needs torch and torchvision beside the kiln package).
import time, torch, torchvision, kiln

model = torchvision.models.resnet18(weights=None).eval()
x = torch.randn(1, 3, 224, 224)
lowered = kiln.lower(torch.export.export(model, (x,)), backends=["OneDnnBackend"])
method = kiln.load(lowered.buffer, threads=1).load_method("forward")
(y,) = method(x)
start = time.perf_counter(); [method(x) for _ in range(20)]; ms = (time.perf_counter() - start) / 20 * 1e3
error = (torch.from_numpy(y) - model(x)).abs().max().item()
print(f"resnet18 on Kiln: {ms:.2f} ms per call, max |error| against PyTorch {error:.2e}")
