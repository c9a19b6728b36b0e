# Near misses of good.once_per_call.py: inside the stepping loop, or a helper called from it.
import torch


class TextToImagePipeline:
    def guidance(self, t, device):
        parts = []
        for g in self.guidance_scales:
            scale = torch.tensor([g * t], device=device)  # expect: SL302
            parts.append(scale)
        return parts

    def __call__(self, prompts, steps=50, device="cuda"):
        latents = torch.randn(len(prompts), 4, 64, 64, device=device)
        for i, t in enumerate(self.scheduler.timesteps):
            t_expand = torch.tensor([t] * latents.shape[0], device=device)  # expect: SL302
            noise = self.unet(latents, t_expand, self.guidance(t, device))
            latents = self.scheduler.step(noise, t, latents).prev_sample
        return latents


def evaluate(model, loader, device):
    # No stepping loop: the loop is the hot part.
    total = torch.zeros((), device=device)
    for batch in loader:
        total += model(batch.to(device))  # expect: SL302
    return total


class DenoiseLoopStep:
    # A block of the denoising loop: it takes the step, and runs every step.
    def __call__(self, components, block_state, i, t):
        for guidance in block_state.guidance_scales:
            g = torch.tensor([guidance], device="cuda")  # expect: SL302
            block_state.noise_pred = block_state.noise_pred * g
        return block_state


def evaluate_all(model, loader, opt, device):
    # `for` inside a comprehension written over lines is no loop of this function, and the
    # `.step(` below is in no loop: without a stepping loop, the evaluation loop is the hot part.
    names = [
        n
        for n in model.names
    ]
    schedule = [opt.step(k) for k in range(3)]
    total = torch.zeros((), device=device)
    for batch in loader:
        total += model(batch.to(device), names)  # expect: SL302
    return total, schedule
