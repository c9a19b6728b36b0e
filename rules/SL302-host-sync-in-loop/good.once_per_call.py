# Once per call: outside the loop that steps a scheduler or an optimizer (bench/precision:
# "one-time-setup" of a diffusion pipeline's __call__ and of a training function).
import torch


class TextToImagePipeline:
    def encode_prompt(self, prompts, device):
        embeds = []
        for p in prompts:
            ids = torch.tensor(self.tokenizer(p), device=device)  # once per prompt and call
            embeds.append(self.text_encoder(ids))
        return torch.cat(embeds)

    def __call__(
        self, prompts, images, steps=50, device="cuda"
    ) -> list:
        """Prompts are encoded by `encode_prompt`, once."""
        embeds = self.encode_prompt(prompts, device)
        refs = []
        for image in images:
            refs.append(image.to(device=device))  # reference images, once per call
        latents = torch.randn(len(prompts), 4, 64, 64, device=device)
        for i, t in enumerate(self.scheduler.timesteps):
            noise = self.unet(latents, t, embeds, refs)
            latents = self.scheduler.step(noise, t, latents).prev_sample
        images = torch.empty(len(prompts), 3, 512, 512, device=device)
        out = []
        for i in range(len(prompts)):
            out.append(images[i].cpu())  # once per image, after the loop
        return out


def train(model, opt, loader, device, stats):
    weights = []
    for s in stats:
        w = torch.tensor(s, device=device)  # set-up before the training loop
        weights.append(w)
    for batch in loader:
        loss = model(batch.to(device, non_blocking=True), weights)
        loss.backward()
        opt.step()


class FusedAdam(torch.optim.Optimizer):
    def step(self):
        for group in self.param_groups:
            if "step" in group:
                group["step"] += 1
            else:  # the first step only: the per-group counter is built once
                group["step"] = torch.tensor([1], dtype=torch.int, device="cuda")
            for p in group["params"]:
                if self.found_inf is None:  # built on first use
                    self.found_inf = torch.tensor([0.0], device="cuda")


def gather_cpu_state_dict(shards):
    # Checkpoint I/O, by name: a state dict gathered once per save.
    out = {}
    for name, shard in shards.items():
        full = shard.cuda()
        out[name] = full.cpu()
    return out


def fsdp2_prepare_model(model, buffers, device):
    # Preparing the model, by name: once.
    for name, buf in buffers.items():
        buf = buf.to(device)
        model.register_buffer(name, buf)


class VaeEncoderStep:
    # A block of a modular pipeline: runs once per pipeline call.
    def __call__(self, components, state):
        for image in state.images:
            latents = components.vae.encode(image.to(components.device))
            state.latents.append(latents)
        return state
